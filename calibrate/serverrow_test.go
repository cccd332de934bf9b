package calibrate

import (
	"math"
	"testing"
)

// TestServerRow: a request sent while another decodes has a TTFT row
// with the rest of the step in progress and the request overhead; its
// server row (llama.cpp's prompt_ms) has the prompt's step alone, and a
// request without server timings has none.
func TestServerRow(t *testing.T) {
	tl := &timeline{reqs: []request{
		{sent: 0, first: 0.1, done: 1.1, prompt: 10, computed: 10, out: 101},
		{sent: 0.505, first: 0.6, done: 0.9, prompt: 50, computed: 50, out: 11, promptSecs: 0.08},
	}}
	for _, q := range tl.reqs {
		tl.maxSpan, tl.maxWait = max(tl.maxSpan, q.done-q.first), max(tl.maxWait, q.first-q.sent)
	}
	ttft, ok := tl.ttftRow(1, 2048, 4)
	if !ok {
		t.Fatal("no TTFT row")
	}
	if ttft.x[colOverhead] != 1 || ttft.x[colBeta] <= 1 {
		t.Fatalf("TTFT row %+v: want the overhead and more than one step", ttft.x)
	}
	srv, ok := serverRow(ttft, tl.reqs[1])
	if !ok {
		t.Fatal("no server row for a request with prompt_ms")
	}
	if !srv.server || !srv.ttft || srv.y != 0.08 || math.Abs(srv.w-1/0.08) > 1e-9 {
		t.Fatalf("server row %+v: want a server row of 80 ms weighted 1/y", srv)
	}
	// The prompt's one step: its 50 tokens, one ubatch, itself and the
	// decoder in the batch; no overhead, no step in progress.
	if srv.x[colOverhead] != 0 || srv.x[colBeta] != 1 || srv.x[colPrefill] != 50 || srv.x[colDecode] != 2 {
		t.Fatalf("server row x %+v: want 50 prompt tokens in one step of 2 sequences, no overhead", srv.x)
	}
	if srv.x[colAttend] >= ttft.x[colAttend] {
		t.Fatalf("server row attends %v keys, the TTFT row %v: want fewer (no step in progress)", srv.x[colAttend], ttft.x[colAttend])
	}
	if _, ok := serverRow(ttft, tl.reqs[0]); ok {
		t.Fatal("server row for a request without server timings")
	}
	if rowKind(srv) != "prompt" || rowKind(ttft) != "ttft" {
		t.Fatalf("kinds %q and %q, want prompt and ttft", rowKind(srv), rowKind(ttft))
	}
}
