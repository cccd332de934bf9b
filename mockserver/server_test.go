package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/mockserver/profile"
)

// tokenPrompt renders n token ids as a JSON array.
func tokenPrompt(n, seed int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprint((seed*7919 + i*104729) % 100256)
	}
	return "[" + strings.Join(ids, ",") + "]"
}

func TestSamePromptTwiceOverHTTP(t *testing.T) {
	_, base := startServer(t, Options{}) // default preset: 100 µs per prefill token
	body := `{"model":"mock-model","prompt":` + tokenPrompt(1000, 1) +
		`,"max_tokens":4,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`
	var cached []int
	var ttft []time.Duration
	for range 2 {
		start := time.Now()
		_, chunks, err := sse(t, context.Background(), base+"/v1/completions", body)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != 6 || chunks[5].data != "[DONE]" {
			t.Fatalf("want 4 token chunks, usage, [DONE]; got %d chunks", len(chunks))
		}
		u := decode(t, chunks[4].data).Usage
		if u == nil || u.PromptTokens != 1000 || u.CompletionTokens != 4 {
			t.Fatalf("usage chunk %s", chunks[4].data)
		}
		cached = append(cached, u.PromptTokensDetails.CachedTokens)
		ttft = append(ttft, chunks[0].at.Sub(start))
	}
	// vLLM: whole 16-token blocks, the last prompt token recomputed:
	// (1000−1)/16 = 62 blocks = 992 tokens.
	if diff := cmp.Diff([]int{0, 992}, cached); diff != "" {
		t.Fatalf("cached tokens (-want +got):\n%s", diff)
	}
	if ttft[1] >= ttft[0] {
		t.Fatalf("TTFT %v with 992 cached tokens, not below %v without", ttft[1], ttft[0])
	}
	t.Logf("TTFT without cache %v, with 992 cached tokens %v", ttft[0], ttft[1])
	m := scrape(t, base)
	got := []float64{m["vllm:prefix_cache_queries_total"], m["vllm:prefix_cache_hits_total"],
		m["vllm:prompt_tokens_total"], m["vllm:generation_tokens_total"], m["vllm:request_success_total{finished_reason=length}"]}
	if diff := cmp.Diff([]float64{2000, 992, 2000, 8, 2}, got); diff != "" {
		t.Fatalf("queries, hits, prompt, generation, finished (-want +got):\n%s", diff)
	}
}

func TestNonStreamedUsage(t *testing.T) {
	_, base := startServer(t, fastOptions())
	body := `{"prompt":` + tokenPrompt(40, 2) + `,"max_tokens":3}`
	var cached []int
	for range 2 {
		code, _, b := post(t, base+"/v1/completions", body)
		if code != 200 {
			t.Fatalf("status %d: %s", code, b)
		}
		var r struct {
			Choices []struct {
				Text         string `json:"text"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage usage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(b), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Choices) != 1 || r.Choices[0].FinishReason != "length" || len(strings.Fields(r.Choices[0].Text)) != 3 {
			t.Fatalf("response %s", b)
		}
		cached = append(cached, r.Usage.PromptTokensDetails.CachedTokens)
	}
	if diff := cmp.Diff([]int{0, 32}, cached); diff != "" {
		t.Fatalf("cached tokens (-want +got):\n%s", diff)
	}
}

func TestChatStreamShape(t *testing.T) {
	_, base := startServer(t, fastOptions())
	body := `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hello there"}]}],` +
		`"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`
	_, chunks, err := sse(t, context.Background(), base+"/v1/chat/completions", body)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 6 {
		t.Fatalf("want role, 3 content, usage, [DONE]; got %d", len(chunks))
	}
	if c := decode(t, chunks[0].data); c.Choices[0].Delta.Role != "assistant" || c.Choices[0].Delta.Content != "" {
		t.Fatalf("first chunk %s", chunks[0].data)
	}
	for i := 1; i <= 3; i++ {
		c := decode(t, chunks[i].data)
		fin := c.Choices[0].FinishReason
		if c.Choices[0].Delta.Content == "" || (i < 3) != (fin == nil) {
			t.Fatalf("chunk %d: %s", i, chunks[i].data)
		}
	}
	if c := decode(t, chunks[4].data); len(c.Choices) != 0 || c.Usage == nil || c.Usage.CompletionTokens != 3 {
		t.Fatalf("usage chunk %s", chunks[4].data)
	}
}

func TestGeneratedTextTokenisesBack(t *testing.T) {
	for _, tok := range []string{"whitespace", "character", "tiktoken"} {
		t.Run(tok, func(t *testing.T) {
			s, base := startServer(t, Options{Engine: fastOptions().Engine, Tokenizer: tok})
			_, _, b := post(t, base+"/v1/completions", `{"prompt":"a b c d","max_tokens":20}`)
			var r struct {
				Choices []struct {
					Text string `json:"text"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(b), &r); err != nil {
				t.Fatal(err)
			}
			if n := len(s.tok.Encode(r.Choices[0].Text)); n != 20 {
				t.Fatalf("%q tokenises to %d tokens, want 20", r.Choices[0].Text, n)
			}
		})
	}
}

func TestModelsAndHealth(t *testing.T) {
	_, base := startServer(t, Options{ModelName: "m1"})
	resp, err := httpGet(base + "/health")
	if err != nil || resp != 200 {
		t.Fatalf("health: %d %v", resp, err)
	}
	code, _, b := get(t, base+"/v1/models")
	var r struct {
		Object string `json:"object"`
		Data   []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(b), &r); err != nil || code != 200 {
		t.Fatalf("models: %d %s", code, b)
	}
	if r.Object != "list" || len(r.Data) != 1 || r.Data[0].ID != "m1" || r.Data[0].MaxModelLen != 8192 {
		t.Fatalf("models: %s", b)
	}
}

// TestCloseEndsStreams closes the server once the client holds the first
// chunk of a long stream: the stream must end, without [DONE].
func TestCloseEndsStreams(t *testing.T) {
	s, base := startServer(t, fastOptions())
	first := make(chan struct{})
	done := make(chan []chunk, 1)
	go func() {
		var once sync.Once
		chunks, _ := sseUntilEOF(base+"/v1/completions", `{"prompt":"a","max_tokens":8000,"stream":true}`,
			func() { once.Do(func() { close(first) }) })
		once.Do(func() { close(first) })
		done <- chunks
	}()
	<-first
	s.Close()
	chunks := <-done
	if len(chunks) == 0 || chunks[len(chunks)-1].data == "[DONE]" {
		t.Fatalf("%d chunks; want a stream ended without [DONE]", len(chunks))
	}
}

// TestStaticBatchStartsTogether sends three requests at once to an idle
// static-batching server: they must run as one batch. The gather window is
// long (400 ms) because the three clients' requests reach the server as
// the machine schedules them: under -race with other test packages
// running, 50 ms was once missed.
func TestStaticBatchStartsTogether(t *testing.T) {
	cfg, _ := profile.BuiltinConfig("linear-static")
	_, base := startServer(t, Options{Engine: cfg, BatchWindow: 400 * time.Millisecond})
	type out struct{ first, last time.Time }
	res := make(chan out, 3)
	for _, n := range []int{2, 6, 4} {
		go func() {
			_, chunks, err := sse(t, context.Background(), base+"/v1/completions",
				fmt.Sprintf(`{"prompt":"a","max_tokens":%d,"stream":true}`, n))
			if err != nil || len(chunks) != n+1 {
				res <- out{}
				return
			}
			res <- out{chunks[0].at, chunks[n-1].at}
		}()
	}
	for range 3 {
		if o := <-res; o.first.IsZero() {
			t.Fatal("stream failed")
		}
	}
	// One batch runs 6 steps (its longest member); a request that missed
	// the window would start a second batch after the first, for 8 or 10
	// steps in all. The step count is exact where the clients' receive
	// times carry the machine's scheduling delays.
	m := scrape(t, base)
	if m["tracebench_mock_steps_total"] != 6 {
		t.Fatalf("steps %v, want 6 (one static batch, longest member 6 tokens)", m["tracebench_mock_steps_total"])
	}
}
