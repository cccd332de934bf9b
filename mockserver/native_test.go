package mockserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// nativeOptions is a llama.cpp mock with 4 slots of the per-slot cache.
func nativeOptions() Options {
	opts := fastOptions()
	opts.Dialect = dialect.LlamaCpp
	opts.Engine.Cache, opts.Engine.MaxNumSeqs, opts.Engine.SlotSimilarity = engine.CachePerSlot, 4, engine.DefaultSlotSimilarity
	return opts
}

// TestNativeCompletion serves POST /completion streamed and whole: the
// partial results carry the text and counts with id_slot −1, the final
// one (or the whole result) stop true, the slot, the counts and the
// timings; no [DONE] ends the stream. A second identical prompt reuses
// the slot's cache (timings.cache_n).
func TestNativeCompletion(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "streamed", false: "whole"}[stream], func(t *testing.T) {
			_, base := startServer(t, nativeOptions())
			body := `{"prompt":` + tokenPrompt(40, 3) + `,"n_predict":4,"cache_prompt":true,"stream":` +
				map[bool]string{true: "true", false: "false"}[stream] + `}`
			var finals []nativeResult
			for range 2 {
				finals = append(finals, nativeExchange(t, base, body, stream))
			}
			for i, f := range finals {
				if !f.Stop || f.IDSlot < 0 || f.IDSlot >= 4 || f.TokensPredicted != 4 || f.TokensEvaluated != 40 ||
					f.Timings.PredictedN != 4 || f.Timings.CacheN+f.Timings.PromptN != 40 {
					t.Errorf("final %d: %+v: want stop, a slot in 0..3, 4 predicted, 40 evaluated, timings summing to 40", i, f)
				}
			}
			if finals[1].Timings.CacheN != 39 || finals[1].IDSlot != finals[0].IDSlot {
				t.Errorf("second request: cache_n %d on slot %d: want 39 on slot %d", finals[1].Timings.CacheN, finals[1].IDSlot, finals[0].IDSlot)
			}
		})
	}
}

// nativeExchange posts body to /completion and returns the final result,
// checking the stream's partial results.
func nativeExchange(t *testing.T, base, body string, stream bool) nativeResult {
	t.Helper()
	if !stream {
		code, _, b := post(t, base+"/completion", body)
		if code != 200 {
			t.Fatalf("status %d: %s", code, b)
		}
		var r nativeResult
		if err := json.Unmarshal([]byte(b), &r); err != nil {
			t.Fatal(err)
		}
		if r.Content == "" {
			t.Errorf("whole result without content: %s", b)
		}
		return r
	}
	_, chunks, err := sse(t, context.Background(), base+"/completion", body)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 5 {
		t.Fatalf("%d results, want 4 partial and a final one: %v", len(chunks), chunks)
	}
	for i, c := range chunks[:4] {
		var p struct {
			Content         string `json:"content"`
			Stop            bool   `json:"stop"`
			IDSlot          int    `json:"id_slot"`
			TokensPredicted int    `json:"tokens_predicted"`
		}
		if err := json.Unmarshal([]byte(c.data), &p); err != nil {
			t.Fatalf("partial %d %q: %v", i, c.data, err)
		}
		if p.Stop || p.IDSlot != -1 || p.TokensPredicted != i+1 || p.Content == "" {
			t.Errorf("partial %d: %s: want stop false, id_slot -1, %d predicted, content", i, c.data, i+1)
		}
	}
	var f nativeResult
	if err := json.Unmarshal([]byte(chunks[4].data), &f); err != nil || strings.Contains(chunks[4].data, "[DONE]") {
		t.Fatalf("final %q: %v", chunks[4].data, err)
	}
	return f
}

// TestNativePinnedSlot: a request naming id_slot k runs on slot k, and a
// slot the server lacks is a 400.
func TestNativePinnedSlot(t *testing.T) {
	_, base := startServer(t, nativeOptions())
	for k := range 4 {
		body := `{"prompt":` + tokenPrompt(20, 9) + `,"n_predict":2,"id_slot":` + string(rune('0'+k)) + `}`
		code, _, b := post(t, base+"/completion", body)
		var r nativeResult
		if code != 200 || json.Unmarshal([]byte(b), &r) != nil || r.IDSlot != k {
			t.Errorf("id_slot %d: status %d, %s: want slot %d", k, code, b, k)
		}
	}
	code, _, b := post(t, base+"/completion", `{"prompt":"hi","n_predict":2,"id_slot":4}`)
	if code != 400 || !strings.Contains(b, "slot 4") {
		t.Errorf("id_slot 4 of 4 slots: status %d, %s: want 400 naming slot 4", code, b)
	}
}

// TestNativeOnlyAsLlamaCpp: /completion exists only when the mock answers
// as llama.cpp.
func TestNativeOnlyAsLlamaCpp(t *testing.T) {
	_, base := startServer(t, fastOptions())
	if code, _, _ := post(t, base+"/completion", `{"prompt":"hi","n_predict":2}`); code != 404 && code != 405 {
		t.Errorf("vLLM mock answered /completion with %d, want 404", code)
	}
}

func FuzzParseNative(f *testing.F) {
	f.Add([]byte(`{"prompt":"hello world","n_predict":3,"stream":true,"cache_prompt":true,"ignore_eos":true,"temperature":0}`))
	f.Add([]byte(`{"prompt":[1,2,3],"n_predict":-1,"id_slot":2}`))
	f.Add([]byte(`{"prompt":[[5,6]],"id_slot":-1,"seed":7}`))
	tok := tokenizer.Whitespace{}
	f.Fuzz(func(t *testing.T, body []byte) {
		g, err := parseNative(body, tok)
		if err != nil {
			if g != nil {
				t.Fatal("error with a result")
			}
			return
		}
		if !g.native || g.chat || g.responses || g.includeUsage {
			t.Fatalf("a native generation marked native %v chat %v responses %v usage %v", g.native, g.chat, g.responses, g.includeUsage)
		}
		if g.slot != nil && *g.slot < 0 {
			t.Fatalf("accepted id_slot %d", *g.slot)
		}
		checkGeneration(t, g)
	})
}
