package dialect

import (
	"encoding/json"
	"testing"
)

// FuzzParseRaw checks that ParseRaw never panics and that whatever it
// accepts is valid JSON with non-contradictory flags.
func FuzzParseRaw(f *testing.F) {
	f.Add([]byte(`{"usage":{"prompt_tokens":11,"completion_tokens":4},"timings":{"cache_n":9,"prompt_n":2}}`))
	f.Add([]byte(`{"usage":{"prompt_tokens":3,"prompt_tokens_details":{"cached_tokens":2}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRaw(b)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if (r.HasDetailsCached && !r.HasUsage) || (!r.HasTimings && (r.CacheN != 0 || r.PromptN != 0)) {
			t.Fatalf("inconsistent %+v from %q", r, b)
		}
	})
}

// FuzzExposition checks that unwrapping and name scanning never panic
// and that unwrapping is idempotent on plain text.
func FuzzExposition(f *testing.F) {
	f.Add([]byte("# TYPE vllm:x gauge\nvllm:x{engine=\"0\"} 1\n"))
	f.Add([]byte(`"llamacpp:n_decode_total 7\n"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		u := UnwrapExposition(b)
		_ = ExpositionNames(u)
		_ = Prefixes(ExpositionNames(u))
	})
}
