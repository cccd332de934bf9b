package mockserver

import (
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// checkGeneration holds for every request the parsers accept.
func checkGeneration(t *testing.T, g *generation) {
	if len(g.prompt) == 0 {
		t.Fatal("accepted an empty prompt")
	}
	for _, id := range g.prompt {
		if id < 0 || id >= engine.VocabSize {
			t.Fatalf("accepted token id %d", id)
		}
	}
	if g.maxTokens < 0 || g.minTokens < 0 || (g.maxTokens > 0 && g.minTokens > g.maxTokens) {
		t.Fatalf("accepted max %d min %d", g.maxTokens, g.minTokens)
	}
	if g.includeUsage && !g.stream {
		t.Fatal("accepted stream_options without stream")
	}
}

func FuzzParseCompletion(f *testing.F) {
	f.Add([]byte(`{"prompt":"hello world","max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`))
	f.Add([]byte(`{"prompt":[1,2,3],"min_tokens":2,"max_tokens":2,"ignore_eos":true}`))
	f.Add([]byte(`{"prompt":[[5,6]],"n":1}`))
	tok := tokenizer.Whitespace{}
	f.Fuzz(func(t *testing.T, body []byte) {
		g, err := parseCompletion(body, tok)
		if err != nil {
			if g != nil {
				t.Fatal("error with a result")
			}
			return
		}
		checkGeneration(t, g)
	})
}

func FuzzParseChat(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"}]}],"max_completion_tokens":4}`))
	tok := tokenizer.Character{}
	f.Fuzz(func(t *testing.T, body []byte) {
		g, err := parseChat(body, tok)
		if err != nil {
			return
		}
		checkGeneration(t, g)
	})
}

func FuzzParseResponses(f *testing.F) {
	f.Add([]byte(`{"model":"m","input":"hi","max_output_tokens":3,"stream":true,"ignore_eos":true}`))
	f.Add([]byte(`{"input":[{"role":"user","content":[{"type":"input_text","text":"a"}]},{"type":"message","role":"assistant","content":"b"}],"instructions":"be brief"}`))
	f.Add([]byte(`{"input":[{"type":"function_call_output"}],"max_output_tokens":0}`))
	tok := tokenizer.Whitespace{}
	f.Fuzz(func(t *testing.T, body []byte) {
		g, err := parseResponses(body, tok)
		if err != nil {
			if g != nil {
				t.Fatal("error with a result")
			}
			return
		}
		if !g.responses || g.chat {
			t.Fatalf("a Responses API generation marked responses %v chat %v", g.responses, g.chat)
		}
		checkGeneration(t, g)
	})
}
