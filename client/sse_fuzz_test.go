package client

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracebench/tracebench/internal/fakesse"
	"github.com/tracebench/tracebench/results"
)

// sseOutcome is everything consumeSSE decides about one stream.
type sseOutcome struct {
	Res   results.Result
	Class string
	OK    bool
}

// Stream readings FuzzSSE runs each input through.
const (
	modePlain     = iota // completions and chat chunks
	modeTags             // the same, <think> tags read in the content
	modeResponses        // Responses API events
	modeNative           // llama.cpp native completion results
	numModes
)

func runConsume(in []byte, split bool, mode int) sseOutcome {
	var clk vclock
	var res results.Result
	st := &tokenStats{res: &res, now: func() time.Duration { clk.advance(time.Microsecond); return clk.now() },
		responses: mode == modeResponses, native: mode == modeNative}
	if mode == modeTags {
		st.tags = &thinkTags{}
	}
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

// FuzzSSE feeds arbitrary bytes to the stream parser, in each of its
// readings (chunks, chunks with <think> tags, Responses API events,
// llama.cpp native results): it
// must end (no panic, no hang), give the same outcome whether bytes
// arrive whole or one at a time, and keep its summaries consistent.
func FuzzSSE(f *testing.F) {
	f.Add([]byte(fakesse.RoleChunk + fakesse.TokChunk + fakesse.FinChunk + fakesse.UsageChunk + fakesse.DoneChunk))
	f.Add([]byte(": ping\r\n\r\ndata: {\"choices\":\ndata: [{\"text\":\"a\"}]}\n\n"))
	f.Add([]byte("event: error\ndata: x\n\n"))
	f.Add([]byte(`data: {"choices":[{"delta":{"reasoning":"a"}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"content":"<think>b</thi"}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"content":"nk>c"},"finish_reason":"stop"}],"usage":{"completion_tokens":3,"reasoning_tokens":2}}` + "\n\n"))
	f.Add([]byte("event: response.reasoning_text.delta\ndata: {\"type\":\"response.reasoning_text.delta\",\"delta\":\"a\"}\n\n" +
		"data: {\"type\":\"response.output_text.delta\",\"delta\":\"b\"}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":2," +
		"\"input_tokens_details\":{\"cached_tokens\":1},\"output_tokens_details\":{\"reasoning_tokens\":1}}}}\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for mode := range numModes {
			checkConsume(t, in, mode)
		}
	})
}

// checkConsume runs one reading of in and checks its outcome.
func checkConsume(t *testing.T, in []byte, mode int) {
	t.Helper()
	whole := runConsume(in, false, mode)
	split := runConsume(in, true, mode)
	if diff := cmp.Diff(whole, split); diff != "" {
		t.Fatalf("mode %d: outcome depends on read sizes (-whole +split):\n%s", mode, diff)
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
	if res.FirstOutput != 0 && res.FirstOutput < res.FirstToken {
		t.Fatalf("first output at %v before the first token at %v", res.FirstOutput, res.FirstToken)
	}
	if res.ReasoningTokens < 0 || res.FirstOutput != 0 && res.Chunks == 0 {
		t.Fatalf("reasoning tokens %d, first output %v with %d chunks", res.ReasoningTokens, res.FirstOutput, res.Chunks)
	}
}
