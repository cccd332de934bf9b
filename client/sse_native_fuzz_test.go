package client

import (
	"errors"
	"testing"
)

// FuzzNativeChunk feeds arbitrary bytes to the native result parser: it
// must not panic, must class every error, and a result it accepts must
// be consistent (content exactly when it has text, a slot only when it
// is not negative, counts only beside tokens_predicted). Seeds:
// testdata/fuzz/FuzzNativeChunk (llama-server b7099's partial, final and
// error results).
func FuzzNativeChunk(f *testing.F) {
	f.Add([]byte(`{"index":0,"content":"a","tokens":[7],"stop":false,"id_slot":-1,"tokens_predicted":1,"tokens_evaluated":3}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		info, text, err := decodeNative(in, "stream")
		if err != nil {
			var ce *classedError
			if !errors.As(err, &ce) || ce.class == "" {
				t.Fatalf("unclassed error %v", err)
			}
			return
		}
		if info.content != (text != "") {
			t.Fatalf("content %v with text %q", info.content, text)
		}
		if info.slot != nil && *info.slot < 0 {
			t.Fatalf("slot %d kept", *info.slot)
		}
		if info.reasoning {
			t.Fatal("a native result has no reasoning channel")
		}
	})
}
