package client

import (
	"os"
	"testing"

	"github.com/tracebench/tracebench/dialect"
)

// TestReadUsageLlamaCpp reads a response of llama-server b7099 as sent.
func TestReadUsageLlamaCpp(t *testing.T) {
	b, err := os.ReadFile("testdata/llamacpp-b7099-completion.json")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := dialect.Lookup(dialect.LlamaCpp)
	u, err := ReadUsage(b, d)
	if err != nil {
		t.Fatal(err)
	}
	if want := (dialect.Usage{Prompt: 11, Completion: 4, Cached: 9, CachedKnown: true}); u != want {
		t.Errorf("got %+v, want %+v", u, want)
	}
	v, _ := dialect.Lookup(dialect.VLLM)
	if u, _ := ReadUsage(b, v); u.CachedKnown {
		t.Error("the vllm dialect must not read llama.cpp's timings as a cached count")
	}
}

func TestReadUsage(t *testing.T) {
	vllm, _ := dialect.Lookup(dialect.VLLM)
	for _, tc := range []struct {
		in   string
		want dialect.Usage
		err  bool
	}{
		{`{"usage":{"prompt_tokens":3,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":2}}}`,
			dialect.Usage{Prompt: 3, Completion: 1, Cached: 2, CachedKnown: true}, false},
		{`{"usage":{"prompt_tokens":3,"prompt_tokens_details":null}}`, dialect.Usage{Prompt: 3}, false},
		{`{"usage":{"prompt_tokens":3,"prompt_tokens_details":{"cached_tokens":null}}}`,
			dialect.Usage{Prompt: 3, CachedKnown: true}, false},
		{`{"timings":{"prompt_n":4}}`, dialect.Usage{}, false},
		{`{"usage":null,"choices":[]}`, dialect.Usage{}, false},
		{`{"usage":`, dialect.Usage{}, true},
		{`{"error":{"message":"boom"}}`, dialect.Usage{}, true},
	} {
		got, err := ReadUsage([]byte(tc.in), vllm)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ReadUsage(%s) = %+v, %v; want %+v err=%v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
