package client

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// promptIDs returns the token-id prompt c sends for req (nil for text).
func promptIDs(t *testing.T, c *Client, req *traces.Request) []int {
	t.Helper()
	b, err := c.body(req)
	if err != nil {
		t.Fatalf("body: %v", err)
	}
	var v struct {
		Prompt json.RawMessage `json:"prompt"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	var ids []int
	if json.Unmarshal(v.Prompt, &ids) != nil {
		return nil
	}
	return ids
}

func TestSaltHeadsTokenPrompts(t *testing.T) {
	req := &traces.Request{ID: "r1", BlockIDs: []uint64{7, 8}, BlockSize: 16, InputTokens: 40, OutputTokens: 4}
	plain := promptIDs(t, New(Options{TokenExact: true}), req)
	a := promptIDs(t, New(Options{TokenExact: true, Salt: "policy-a"}), req)
	b := promptIDs(t, New(Options{TokenExact: true, Salt: "policy-b"}), req)
	if len(plain) != 40 || len(a) != 40+SaltTokens || len(b) != len(a) {
		t.Fatalf("lengths plain %d, salted %d and %d; want 40 and %d each", len(plain), len(a), len(b), 40+SaltTokens)
	}
	if !slices.Equal(a[SaltTokens:], plain) || !slices.Equal(b[SaltTokens:], plain) {
		t.Fatal("a salted prompt does not end with the unsalted prompt")
	}
	if slices.Equal(a[:SaltTokens], b[:SaltTokens]) {
		t.Fatal("two salts spell the same head")
	}
	other := &traces.Request{ID: "r2", BlockIDs: []uint64{9}, BlockSize: 16, InputTokens: 16}
	if a2 := promptIDs(t, New(Options{TokenExact: true, Salt: "policy-a"}), other); !slices.Equal(a2[:SaltTokens], a[:SaltTokens]) {
		t.Fatal("one salt spells different heads on two requests")
	}
}

func TestSaltNotOnTextOrChat(t *testing.T) {
	req := &traces.Request{ID: "r1", BlockIDs: []uint64{7}, BlockSize: 16, InputTokens: 16}
	tests := []struct {
		name string
		o    Options
	}{
		{"text prompts", Options{Salt: "s"}},
		{"chat", Options{API: APIChat, TokenExact: true, Salt: "s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.o)
			if c.Salted() {
				t.Fatal("Salted() = true")
			}
			if ids := promptIDs(t, c, req); ids != nil {
				t.Fatalf("sent token ids %v", ids)
			}
		})
	}
}

func TestUnsaltUsage(t *testing.T) {
	tests := []struct {
		name                   string
		salt, prompt, cached   int
		wantPrompt, wantCached int
	}{
		{"unsalted", 0, 56, 20, 56, 20},
		{"salt and a shared block cached", SaltTokens, 56, 32, 40, 16},
		{"only the salt cached", SaltTokens, 56, SaltTokens, 40, 0},
		{"cold", SaltTokens, 56, 0, 40, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := &results.Result{PromptTokens: tc.prompt, CachedTokens: tc.cached}
			st := &tokenStats{res: res, salt: tc.salt, usage: true, cached: true}
			st.close()
			if res.PromptTokens != tc.wantPrompt || res.CachedTokens != tc.wantCached {
				t.Fatalf("prompt %d cached %d, want %d and %d", res.PromptTokens, res.CachedTokens, tc.wantPrompt, tc.wantCached)
			}
		})
	}
}
