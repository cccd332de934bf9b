package metrics

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/results"
)

// basisRun folds results of one shape into a Summary: n requests to
// backend b0, each with the given intended and server prompt tokens.
func basisRun(t *testing.T, stop *results.Stop, mk func(i int) *results.Result) *Summary {
	t.Helper()
	h := results.Header{Backends: []string{"http://b0"}, Config: results.RunConfig{Stream: new(true)}}
	if r := mk(0); r.Chunks < 2 {
		h.Config.Stream = new(false)
	}
	a := NewAccumulator(h, DefaultOptions())
	for i := range 4 {
		a.Add(mk(i))
	}
	if stop == nil {
		stop = &results.Stop{Reason: "done", Elapsed: 5 * time.Second}
	}
	return a.Finish(stop)
}

func hasWarning(s *Summary, sub string) bool {
	for _, w := range s.Warnings {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

func TestTokenBasis(t *testing.T) {
	result := func(i int) *results.Result {
		return &results.Result{User: "u", Intended: time.Duration(i) * time.Second, Sent: time.Duration(i) * time.Second,
			FirstToken: time.Duration(i)*time.Second + 100*time.Millisecond, Done: time.Duration(i)*time.Second + 500*time.Millisecond,
			Chunks: 5, CompletionTokens: 5, OutputTokens: 5, InputTokens: 544, PromptTokens: 1410, CachedTokens: 1092,
			PredictedHitTokens: 421}
	}
	tests := []struct {
		name      string
		mk        func(i int) *results.Result
		stop      *results.Stop
		server    float64 // NaN: n/a
		predicted float64
		ratio     float64
		warn      []string
		tpotNaN   bool
	}{
		{"a longer tokenizer: predicted on the trace's basis, ratio shown", result, nil,
			1092.0 / 1410, 421.0 / 544, 1410.0 / 544, []string{"another basis than the trace", "2.592 server tokens"}, false},
		{"no cached count: n/a and a warning naming the backend", func(i int) *results.Result {
			r := result(i)
			r.NoCached, r.CachedTokens, r.PromptTokens = true, 0, 544
			return r
		}, nil, math.NaN(), 421.0 / 544, 1, []string{"no cached-token count in responses from http://b0"}, false},
		{"not streamed: TPOT n/a", func(i int) *results.Result {
			r := result(i)
			r.Chunks, r.FirstToken, r.PromptTokens, r.CachedTokens = 1, r.Done, 544, 0
			return r
		}, nil, 0, 421.0 / 544, 1, []string{"responses were not streamed"}, true},
		{"scrape failures counted", func(i int) *results.Result {
			r := result(i)
			r.PromptTokens, r.CachedTokens = 544, 272
			return r
		}, &results.Stop{Reason: "done", Elapsed: 5 * time.Second, Extra: map[string]float64{results.ExtraScrapes: 10, results.ExtraScrapeFailures: 3, results.ExtraScrapeUnknown: 1}},
			0.5, 421.0 / 544, 1, []string{"scrapes of /metrics failed (3 of 10)", "without any of the dialect's names (1 backends)"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := basisRun(t, tc.stop, tc.mk)
			if !approx(s.HitRate.Server, tc.server) || !approx(s.Backends[0].HitRate, tc.server) {
				t.Errorf("server hit %v (backend %v), want %v", s.HitRate.Server, s.Backends[0].HitRate, tc.server)
			}
			if !approx(s.HitRate.Predicted, tc.predicted) || s.HitRate.Predicted > 1 {
				t.Errorf("predicted hit %v, want %v", s.HitRate.Predicted, tc.predicted)
			}
			if !approx(s.PromptTokenRatio, tc.ratio) {
				t.Errorf("prompt token ratio %v, want %v", s.PromptTokenRatio, tc.ratio)
			}
			for _, w := range tc.warn {
				if !hasWarning(s, w) {
					t.Errorf("no warning with %q in %q", w, s.Warnings)
				}
			}
			if math.IsNaN(s.TPOT.P50) != tc.tpotNaN && !(tc.tpotNaN && s.TPOT.Count == 0) {
				t.Errorf("TPOT %+v, want n/a = %v", s.TPOT, tc.tpotNaN)
			}
			if tc.tpotNaN && s.TPOT.Count != 0 {
				t.Errorf("unstreamed responses gave %d TPOT samples", s.TPOT.Count)
			}
			if u := lookupUser(s, "u"); !approx(u.Service, u.Demand) {
				t.Errorf("service %v of demand %v: want equal for fully served requests", u.Service, u.Demand)
			}
		})
	}
}

// approx compares with NaN equal to NaN.
func approx(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-9
}

// TestBenchWarnings: a live bench whose caches persisted says so, and a
// backend whose scraped generated tokens fall well short of what the
// client received is flagged as more than one server.
func TestBenchWarnings(t *testing.T) {
	h := results.Header{Backends: []string{"http://b0", "http://b1"},
		Config: results.RunConfig{BenchCaches: "persisted: cannot flush", BenchOrder: "2 of 3"}}
	a := NewAccumulator(h, DefaultOptions())
	for i := range 20 {
		a.Add(&results.Result{Backend: i % 2, Intended: time.Duration(i) * 100 * time.Millisecond, Sent: 1,
			FirstToken: time.Duration(i)*100*time.Millisecond + 10, Done: time.Duration(i)*100*time.Millisecond + 50,
			Chunks: 100, CompletionTokens: 100, PromptTokens: 10, InputTokens: 10})
	}
	for _, at := range []time.Duration{0, 3 * time.Second} {
		g := float64(at / time.Second * 333) // b0: 999 of 1,000 tokens; b1: half
		a.AddEvent(&results.Event{At: at, Source: "scrape:0", Values: map[string]float64{"generation_tokens_total": g * 1.001}})
		a.AddEvent(&results.Event{At: at, Source: "scrape:1", Values: map[string]float64{"generation_tokens_total": g / 2}})
	}
	s := a.Finish(&results.Stop{Reason: "done", Elapsed: 3 * time.Second})
	for _, w := range []string{"prefix caches persisted between policies", "ran 2 of 3", "more than one server answers at http://b1"} {
		if !hasWarning(s, w) {
			t.Errorf("no warning %q in %q", w, s.Warnings)
		}
	}
	if hasWarning(s, "answers at http://b0") {
		t.Errorf("b0 served what the client received, yet: %q", s.Warnings)
	}
}
