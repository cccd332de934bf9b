package replay

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sseOutcome is everything consumeSSE decides about one stream.
type sseOutcome struct {
	Res   Result
	Class string
	OK    bool
}

func runConsume(in []byte, split bool) sseOutcome {
	var clk vclock
	var res Result
	st := &tokenStats{res: &res, now: func() time.Duration { clk.advance(time.Microsecond); return clk.now() }}
	var r = bytes.NewReader(in)
	var err error
	if split {
		err = consumeSSE(iotest.OneByteReader(r), st)
	} else {
		err = consumeSSE(r, st)
	}
	st.close()
	out := sseOutcome{Res: res, OK: err == nil}
	var ce *classedError
	if errors.As(err, &ce) {
		out.Class = ce.class
	}
	return out
}

// FuzzSSE feeds arbitrary bytes to the stream parser: it must end (no
// panic, no hang), give the same outcome whether bytes arrive whole or
// one at a time, and keep its summaries consistent.
func FuzzSSE(f *testing.F) {
	f.Add([]byte(roleChunk + tokChunk + finChunk + usageChunk + doneChunk))
	f.Add([]byte(": ping\r\n\r\ndata: {\"choices\":\ndata: [{\"text\":\"a\"}]}\n\n"))
	f.Add([]byte("event: error\ndata: x\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		whole := runConsume(in, false)
		split := runConsume(in, true)
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Fatalf("outcome depends on read sizes (-whole +split):\n%s", diff)
		}
		res := whole.Res
		var gaps int64
		for i, g := range res.Gaps {
			gaps += g.N
			if g.N <= 0 || g.V < 0 || (i > 0 && res.Gaps[i-1].V >= g.V) {
				t.Fatalf("bad gap bins %v", res.Gaps)
			}
		}
		if want := int64(max(res.Chunks-1, 0)); gaps != want {
			t.Fatalf("gap count %d, want %d for %d chunks", gaps, want, res.Chunks)
		}
		if !whole.OK && whole.Class == "" {
			t.Fatalf("failed without a class (a read error cannot happen on a byte slice)")
		}
		if (res.Chunks > 0) != (res.FirstToken > 0) {
			t.Fatalf("chunks %d but first token at %v", res.Chunks, res.FirstToken)
		}
	})
}
