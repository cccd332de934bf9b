package mockserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver/engine"
)

// reasoningOptions is a replica whose every request reasons for 2
// tokens before it answers.
func reasoningOptions(d string) Options {
	o := fastOptions()
	o.Engine.MaxModelLen = 64
	o.Engine.Reasoning = engine.ReasoningConfig{Share: 1, MeanTokens: 2}
	o.Dialect = d
	return o
}

// createdAtRE matches the Unix time in Responses API objects.
var createdAtRE = regexp.MustCompile(`"created_at":\d+`)

// TestWireFormatReasoningGolden pins the reasoning streams the mock
// sends: chat deltas in reasoning_content, completions text between
// <think> tags, the Responses API's events, non-streamed bodies, and the
// reasoning usage figure where the dialect reports it.
func TestWireFormatReasoningGolden(t *testing.T) {
	var out bytes.Buffer
	for _, d := range []string{dialect.VLLM, dialect.SGLang, dialect.OpenAI} {
		_, base := startServer(t, reasoningOptions(d))
		reqs := []struct{ path, body string }{
			{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`},
			{"/v1/completions", `{"prompt":"the cat sat","max_tokens":4,"stream":true}`},
			{"/v1/responses", `{"input":[{"role":"user","content":"hi"}],"max_output_tokens":4,"stream":true}`},
			{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":3}`},
			{"/v1/completions", `{"prompt":"the cat sat","max_tokens":1}`},
			{"/v1/responses", `{"input":"hi","max_output_tokens":3,"ignore_eos":true}`},
		}
		if d != dialect.VLLM {
			reqs = reqs[:1]
		}
		for _, r := range reqs {
			resp, err := http.Post(base+r.path, "application/json", strings.NewReader(r.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			b = createdRE.ReplaceAll(b, []byte(`"created":0`))
			b = createdAtRE.ReplaceAll(b, []byte(`"created_at":0`))
			out.WriteString(d + " POST " + r.path + " " + r.body + "\n")
			out.WriteString(resp.Status + " " + resp.Header.Get("Content-Type") + "\n")
			out.Write(b)
			out.WriteString("\n")
		}
	}
	golden(t, "wire_reasoning.golden", out.Bytes())
}

// TestResponsesStreamEvents reads a streamed Responses API answer event
// by event: the event names come in vLLM's order, the deltas add up to
// the items' texts, and response.completed carries the usage.
func TestResponsesStreamEvents(t *testing.T) {
	_, base := startServer(t, reasoningOptions(dialect.VLLM))
	resp, err := http.Post(base+"/v1/responses", "application/json",
		strings.NewReader(`{"model":"mock-model","input":"hi","max_output_tokens":5,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var types []string
	var completed struct {
		Response struct {
			Status string
			Usage  struct {
				InputTokens         int `json:"input_tokens"`
				OutputTokens        int `json:"output_tokens"`
				OutputTokensDetails struct {
					ReasoningTokens int `json:"reasoning_tokens"`
				} `json:"output_tokens_details"`
			}
		}
	}
	for i, ev := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		name, data, ok := strings.Cut(ev, "\ndata: ")
		typ := strings.TrimPrefix(name, "event: ")
		var f struct {
			Type string `json:"type"`
			Seq  int    `json:"sequence_number"`
		}
		if !ok || json.Unmarshal([]byte(data), &f) != nil || f.Type != typ || f.Seq != i {
			t.Fatalf("event %d %q: want event: TYPE, data with that type and sequence_number %d", i, ev, i)
		}
		types = append(types, typ)
		if typ == "response.completed" {
			if err := json.Unmarshal([]byte(data), &completed); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := "response.created response.in_progress response.output_item.added response.content_part.added " +
		"response.reasoning_text.delta response.reasoning_text.delta response.reasoning_text.done " +
		"response.content_part.done response.output_item.done response.output_item.added response.content_part.added " +
		"response.output_text.delta response.output_text.delta response.output_text.delta response.output_text.done " +
		"response.content_part.done response.output_item.done response.completed"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("events\n%s\nwant\n%s", got, want)
	}
	u := completed.Response.Usage
	if completed.Response.Status != "incomplete" || u.OutputTokens != 5 || u.OutputTokensDetails.ReasoningTokens != 2 ||
		u.InputTokens == 0 {
		t.Fatalf("completed: %+v: want incomplete (max_output_tokens), 5 output tokens of which 2 reasoning", completed.Response)
	}
}

// TestReasoningNeverEnds: a request whose max_tokens is below its
// reasoning streams only reasoning (no content delta, no </think>).
func TestReasoningNeverEnds(t *testing.T) {
	o := reasoningOptions(dialect.VLLM)
	o.Engine.Reasoning.MeanTokens = 10
	_, base := startServer(t, o)
	for _, tc := range []struct{ path, body, never string }{
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true}`, `"content":" `},
		{"/v1/completions", `{"prompt":"hi","max_tokens":3,"stream":true}`, "</think>"},
		{"/v1/responses", `{"input":"hi","max_output_tokens":3,"stream":true}`, "output_text"},
	} {
		resp, err := http.Post(base+tc.path, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), tc.never) || !strings.Contains(string(b), "think") && !strings.Contains(string(b), "reasoning") {
			t.Errorf("%s: the stream left its reasoning or never reasoned:\n%s", tc.path, b)
		}
	}
}

func TestResponsesBadInput(t *testing.T) {
	_, base := startServer(t, fastOptions())
	for _, tc := range []struct{ body, want string }{
		{`{"max_output_tokens":3}`, "input: field required"},
		{`{"input":[]}`, "input: at least one item"},
		{`{"input":5}`, "input: want a string or a list"},
		{`{"input":"hi","max_output_tokens":0}`, "max_output_tokens must be at least 1"},
		{`{"input":[{"type":"function_call_output","output":"x"}]}`, `input[0].type: \"function_call_output\" is not supported`},
	} {
		resp, err := http.Post(base+"/v1/responses", "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %d %s, want 400 with %q", tc.body, resp.StatusCode, b, tc.want)
		}
	}
	_, lbase := startServer(t, Options{Engine: fastOptions().Engine, Dialect: dialect.LlamaCpp})
	resp, err := http.Post(lbase+"/v1/responses", "application/json", strings.NewReader(`{"input":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("llama.cpp dialect answers /v1/responses with %d, want 404 (llama-server has none)", resp.StatusCode)
	}
}
