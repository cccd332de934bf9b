package gateway

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces"
)

// TestParseBody reads the routing view of completions and chat bodies.
func TestParseBody(t *testing.T) {
	tests := []struct {
		name string
		chat bool
		body string
		want traces.Request
	}{
		{"text", false, `{"model":"m","prompt":"hi there","max_tokens":7,"user":"u1","stream":true}`,
			traces.Request{Model: "m", Prompt: "hi there", OutputTokens: 7, User: "u1"}},
		{"token ids", false, `{"prompt":[5,6,7]}`, traces.Request{TokenIDs: []int{5, 6, 7}, InputTokens: 3}},
		{"one text in an array", false, `{"prompt":["x"]}`, traces.Request{Prompt: "x"}},
		{"one id list in an array", false, `{"prompt":[[1,2]],"max_tokens":null}`, traces.Request{TokenIDs: []int{1, 2}, InputTokens: 2}},
		{"chat", true, `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"q"}],"max_completion_tokens":3}`,
			traces.Request{Messages: []traces.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "q"}}, OutputTokens: 3}},
		{"chat parts", true, `{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{}},{"type":"text","text":"b"}]}]}`,
			traces.Request{Messages: []traces.Message{{Role: "user", Content: "a\nb"}}}},
		{"max_tokens first", false, `{"prompt":"a","max_tokens":2,"max_completion_tokens":9}`, traces.Request{Prompt: "a", OutputTokens: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseBody([]byte(tc.body), tc.chat)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// FuzzParseBody: any body is read or refused with a *bodyError, never a
// panic, and what is read is consistent.
func FuzzParseBody(f *testing.F) {
	for _, s := range []string{`{"prompt":"a","max_tokens":3}`, `{"prompt":[1,2,3]}`, `{"prompt":[[1]]}`,
		`{"messages":[{"role":"user","content":"x"}]}`, `{"messages":[{"content":[{"type":"text","text":"y"}]}]}`,
		`{"prompt":["a","b"]}`, `[]`, `{`, `{"prompt":[]}`, `{"prompt":[""]}`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		req, err := parseBody(body, chat)
		if err != nil {
			var be *bodyError
			if !errors.As(err, &be) {
				t.Fatalf("error %v is not a bodyError", err)
			}
			return
		}
		if req.OutputTokens < 0 || req.InputTokens != len(req.TokenIDs) {
			t.Fatalf("inconsistent request %+v", req)
		}
		if chat && len(req.Messages) == 0 {
			t.Fatalf("chat request without messages: %+v", req)
		}
	})
}
