package dialect

import (
	"testing"
)

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
