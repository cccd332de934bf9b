package reports

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// pdResults is a disaggregated Run's Results on backends prefill 0,
// decode 1 and 2: two split requests, a fallback without
// kv_transfer_params, a decode-only one and one whose split the servers
// did not report.
func pdResults() []*results.Result {
	ms := time.Millisecond
	pd := func(b int, sent, done, tr time.Duration, known bool) *results.PrefillPhase {
		return &results.PrefillPhase{Backend: b, Protocol: results.PDTwoStep, Sent: sent, Done: done, Transfer: tr, TransferKnown: known, CachedTokens: 16}
	}
	ok := func(seq int64, b int, sent, first, done time.Duration, p *results.PrefillPhase) *results.Result {
		return &results.Result{Seq: seq, ID: "r", Backend: b, Intended: sent, Released: sent, Sent: sent, FirstToken: first,
			Done: done, Chunks: 4, PromptTokens: 64, CompletionTokens: 4, CachedTokens: 63, Status: 200, PD: p}
	}
	fb := pd(0, 400*ms, 410*ms, 0, false)
	fb.ErrClass, fb.Fallback = results.ErrNoKVParams, true
	return []*results.Result{
		// prefill 20 ms, transfer 5 ms, first decode 10 ms.
		ok(0, 1, 0, 35*ms, 100*ms, pd(0, 0, 20*ms, 5*ms, true)),
		// prefill 40 ms, transfer 10 ms, first decode 30 ms.
		ok(1, 2, 100*ms, 180*ms, 300*ms, pd(0, 100*ms, 140*ms, 10*ms, true)),
		ok(2, 1, 400*ms, 450*ms, 500*ms, fb),
		ok(3, 2, 500*ms, 520*ms, 600*ms, nil),
		ok(4, 1, 600*ms, 700*ms, 800*ms, pd(0, 600*ms, 0, 0, false)),
	}
}

func TestPDSummary(t *testing.T) {
	a := metrics.NewAccumulator(results.Header{Backends: []string{"a", "b", "c"},
		Roles: []string{replay.RolePrefill, replay.RoleDecode, replay.RoleDecode}}, metrics.DefaultOptions())
	for _, r := range pdResults() {
		a.Add(r)
	}
	s := a.Finish(nil)
	p := s.PD
	if p == nil || p.Disaggregated != 4 || p.DecodeOnly != 1 || p.Fallbacks != 1 || p.PrefillErrors[results.ErrNoKVParams] != 1 ||
		p.SplitUnknown != 1 || p.Prefill.Count != 2 {
		t.Fatalf("P/D summary %+v", p)
	}
	// HDR histograms keep three significant digits.
	if math.Abs(p.Prefill.Max-40) > 0.1 || math.Abs(p.Transfer.Max-10) > 0.1 || math.Abs(p.FirstDecode.Max-30) > 0.1 {
		t.Errorf("split max: prefill %v transfer %v first decode %v; want 40, 10, 30 ms", p.Prefill.Max, p.Transfer.Max, p.FirstDecode.Max)
	}
	// Prefill phases 20 + 40 + 10 ms on one backend over the 0.8 s
	// window: occupancy 0.0875.
	if len(p.Roles) != 2 || p.Roles[0].Phases != 3 || p.Roles[0].Occupancy < 0.0874 || p.Roles[0].Occupancy > 0.0876 {
		t.Errorf("roles %+v: want 3 prefill phases, occupancy 0.0875", p.Roles)
	}
	// Hit rate: 16 cached of 64 for the three good prefills, the
	// fallback's and the decode-only request's 63 of 64.
	if want := float64(3*16+2*63) / (5 * 64); s.HitRate.Server != want {
		t.Errorf("server hit %v, want %v (the prefill backend's cached tokens)", s.HitRate.Server, want)
	}
	var buf bytes.Buffer
	writePD(&buf, []*metrics.Summary{s})
	checkGolden(t, "pd-section.md", buf.Bytes())
}
