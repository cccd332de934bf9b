package client

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// infoOf decodes data with encoding/json only (the reference).
func infoOf(data []byte) (chunkInfo, bool) {
	var c apiChunk
	if decodeChunk(data, &c) != nil || c.errorText() != "" {
		return chunkInfo{}, false
	}
	return c.info(), true
}

var infoCmp = cmp.AllowUnexported(chunkInfo{})

func TestScanChunk(t *testing.T) {
	tests := []struct {
		name, in string
		accept   bool
	}{
		{"vLLM chat token", `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}],"usage":null}`, true},
		{"role only", `{"choices":[{"delta":{"role":"assistant","content":""}}]}`, true},
		{"usage only", `{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":8}}}`, true},
		{"details null", `{"usage":{"prompt_tokens":1,"prompt_tokens_details":null}}`, true},
		{"finish", ` {"choices":[{"text":"","finish_reason":"length","stop_reason":null}]} `, true},
		{"escaped text", `{"choices":[{"text":"\u00e9\n"}]}`, true},
		{"reasoning", `{"choices":[{"delta":{"reasoning_content":"hm"}}]}`, true},
		{"vLLM reasoning", `{"choices":[{"index":0,"delta":{"reasoning":"hm"},"logprobs":null,"finish_reason":null}]}`, true},
		{"both reasoning names", `{"choices":[{"delta":{"reasoning":"a","reasoning_content":"a"}}]}`, true},
		{"reasoning null", `{"choices":[{"delta":{"content":"x","reasoning":null}}]}`, true},
		{"reasoning not a string", `{"choices":[{"delta":{"reasoning":{"effort":"low"}}}]}`, false},
		{"duplicate reasoning", `{"choices":[{"delta":{"reasoning":"a","reasoning":"b"}}]}`, false},
		{"reasoning tokens", `{"usage":{"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":6,"audio_tokens":0}}}`, true},
		{"SGLang reasoning tokens", `{"usage":{"completion_tokens":9,"prompt_tokens_details":null,"reasoning_tokens":4}}`, true},
		{"reasoning tokens null", `{"usage":{"completion_tokens_details":{"reasoning_tokens":null},"reasoning_tokens":null}}`, true},
		{"details null", `{"usage":{"completion_tokens_details":null}}`, true},
		{"float reasoning tokens", `{"usage":{"reasoning_tokens":1.5}}`, false},
		{"null choice", `{"choices":[null,{"text":"a"}]}`, true},
		{"deep unknown", `{"x":[[[{"a":[1.5e-3,true,false,null,"s"]}]]],"choices":null}`, true},
		{"error frame", `{"error":{"message":"boom"}}`, false},
		{"flat error", `{"object":"error","message":"boom"}`, false},
		{"escaped error object", `{"object":"\u0065rror","message":"boom"}`, false},
		{"duplicate choices", `{"choices":[{"text":"a"}],"choices":[{}]}`, false},
		{"case-folded key", `{"Choices":[{"text":"a"}]}`, false},
		{"escaped key", `{"ch\u006fices":[]}`, false},
		{"text not a string", `{"choices":[{"text":5}]}`, false},
		{"float tokens", `{"usage":{"prompt_tokens":1.0}}`, false},
		{"huge tokens", `{"usage":{"prompt_tokens":12345678901234567890}}`, false},
		{"top-level null", `null`, false},
		{"trailing garbage", `{"choices":[]} x`, false},
		{"control char", "{\"choices\":[{\"text\":\"a\x01\"}]}", false},
		{"bad escape", `{"choices":[{"text":"\x"}]}`, false},
		{"unclosed", `{"choices":[{"text":"a"}]`, false},
		{"leading zero", `{"n":01}`, false},
		{"llama.cpp timings", `{"choices":[{"text":"","finish_reason":"length"}],"usage":{"completion_tokens":3,"prompt_tokens":11},"timings":{"cache_n":9,"prompt_n":2,"prompt_ms":1.575}}`, false},
		{"timings cache_n null", `{"timings":{"cache_n":null,"prompt_n":2}}`, false},
		{"id_slot", `{"id_slot":3}`, false},
		{"id_slot null", `{"id_slot":null}`, true},
		{"timings null", `{"timings":null}`, true},
		{"duplicate timings", `{"timings":{},"timings":{}}`, false},
		{"float cache_n", `{"timings":{"cache_n":1.5}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var u scanStore
			got, ok := scanChunk([]byte(tc.in), &u)
			if ok != tc.accept {
				t.Fatalf("scanChunk accepted = %v, want %v", ok, tc.accept)
			}
			if !ok {
				return
			}
			want, valid := infoOf([]byte(tc.in))
			if !valid {
				t.Fatalf("scanChunk accepted what encoding/json rejects")
			}
			if diff := cmp.Diff(want, got, infoCmp); diff != "" {
				t.Errorf("info mismatch (-json +scan):\n%s", diff)
			}
		})
	}
}

// FuzzScanChunk checks the fast scanner against encoding/json: whenever
// it accepts, the input is valid JSON, not an error frame, and both give
// the same content, finish and usage figures.
func FuzzScanChunk(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":null}`))
	f.Add([]byte(`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":8}}}`))
	f.Add([]byte(`{"object":"error","message":"x","error":{"message":"y"}}`))
	f.Add([]byte(`{"usage":{"prompt_tokens":11},"timings":{"cache_n":9,"prompt_n":2}}`))
	f.Add([]byte(`{"choices":[{"delta":{"reasoning":"a","reasoning_content":null}}],"usage":{"completion_tokens_details":{"reasoning_tokens":3},"reasoning_tokens":2}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var u scanStore
		got, ok := scanChunk(in, &u)
		if !ok {
			return
		}
		if !json.Valid(in) {
			t.Fatalf("accepted invalid JSON")
		}
		want, valid := infoOf(in)
		if !valid {
			t.Fatalf("accepted a chunk encoding/json rejects or reads as an error frame")
		}
		if diff := cmp.Diff(want, got, infoCmp); diff != "" {
			t.Fatalf("info mismatch (-json +scan):\n%s", diff)
		}
	})
}
