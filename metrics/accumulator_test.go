package metrics

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tracebench/tracebench/results"
)

func TestAccumulatorHandComputed(t *testing.T) {
	o := DefaultOptions()
	o.SLO.TTFT, o.SLO.TPOT = 500*ms1, 60*ms1
	s := summarizeHand(o)
	// Jain's index over time is worked by hand in TestJainOverTime; here
	// it is pinned. At the end of the run 538 weighted tokens were given
	// against demands of 296 (a) and 562 (b, one request failed): max-min
	// shares 269 each, x = 296/269 and 242/269, Jain 0.990; earlier
	// buckets, while b waited, pull the mean over time lower.
	jain := 0.962253097149554
	type figures struct {
		Requests, OK, Met                       int64
		ErrorRate, Attainment, Goodput          float64
		ReqPerS, InTokPerS, OutTokPerS          float64
		HitServer, HitPredicted, TokensPerChunk float64
		Jain, ServiceDiffMax, CVRequests        float64
		UserAAttainment, UserBAttainment        float64
	}
	got := figures{s.Requests, s.OK, s.SLA.Met, s.ErrorRate, s.SLA.Attainment, s.SLA.Goodput,
		s.Throughput.Requests, s.Throughput.InputTokens, s.Throughput.OutputTokens,
		s.HitRate.Server, s.HitRate.Predicted, s.TokensPerChunk,
		s.Fairness.Jain, s.Fairness.ServiceDiffMax, s.Balance.CVRequests,
		lookupUser(s, "a").Attainment, lookupUser(s, "b").Attainment}
	want := figures{
		Requests: 5, OK: 4, Met: 2, // r0 and r4 meet; r1 TTFT 602 ms, r2 TPOT 200 ms, r3 failed
		ErrorRate: 0.2, Attainment: 0.4, Goodput: 0.2, // 2 met over the 10 s window
		ReqPerS: 0.4, InTokPerS: 45, OutTokPerS: 4.4, // 450 prompt and 44 output tokens in 10 s
		HitServer: 150.0 / 450.0, HitPredicted: 100.0 / 450.0, TokensPerChunk: 44.0 / 34.0,
		Jain: jain,
		// one 10 s window: served a 29.6/s, b 24.2/s; b asked 56.2/s → min(5.4, 32) = 5.4.
		ServiceDiffMax:  5.4,
		CVRequests:      0.2, // 3 and 2 requests: mean 2.5, sd 0.5
		UserAAttainment: 2.0 / 3.0, UserBAttainment: 0,
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("figures (-want +got):\n%s", d)
	}
	// Percentiles come from HDR histograms (3 significant digits).
	dists := []struct {
		name          string
		d             Dist
		count         int64
		p50, p99, max float64
	}{
		{"TTFT", s.TTFT, 4, 201, 602, 602},          // 101 201 301 602: nearest rank 2 and 4
		{"TPOT", s.TPOT, 3, 50, 200, 200},           // 500/10, 1000/20, 2000/10; r4 has one token
		{"TBT", s.TBT, 40, 50, 200, 200},            // 30 gaps of 50 ms, 10 of 200 ms
		{"E2E", s.E2E, 4, 1000, 2101, 2101},         // 701 1000 1602 2101
		{"schedule lag", s.ScheduleLag, 4, 1, 2, 2}, // 1 2 1 1
	}
	for _, tt := range dists {
		t.Run(tt.name, func(t *testing.T) {
			if tt.d.Count != tt.count {
				t.Errorf("count = %d, want %d", tt.d.Count, tt.count)
			}
			for _, c := range []struct {
				q         string
				got, want float64
			}{{"p50", tt.d.P50, tt.p50}, {"p99", tt.d.P99, tt.p99}, {"max", tt.d.Max, tt.max}} {
				if math.Abs(c.got-c.want) > c.want*1e-3 {
					t.Errorf("%s = %v ms, want %v ms within 0.1 %%", c.q, c.got, c.want)
				}
			}
		})
	}
	if s.Errors[results.ErrHTTP5xx] != 1 {
		t.Errorf("errors = %v, want http-5xx 1", s.Errors)
	}
}

func TestAccumulatorWarmup(t *testing.T) {
	o := DefaultOptions()
	o.Warmup = 2 * time.Second
	s := summarizeHand(o)
	// r0 (0 s) and r1 (1 s) arrive before the cut; the window is 2 s..10 s.
	got := []float64{float64(s.Requests), float64(s.WarmupSkipped), s.Window.Seconds, s.Throughput.Requests}
	want := []float64{3, 2, 8, 2.0 / 8.0}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("requests, skipped, window s, req/s (-want +got):\n%s", d)
	}
}

func TestPerUserSLO(t *testing.T) {
	o := DefaultOptions()
	o.SLO.TTFT = 500 * ms1
	// b gets a looser TTFT bound: r1 (602 ms) now meets it.
	o.SLO.PerUser = map[string]SLO{"b": {TTFT: time.Second}}
	s := summarizeHand(o)
	if got := lookupUser(s, "b").Met; got != 1 {
		t.Errorf("user b met = %d, want 1", got)
	}
	if s.SLA.Met != 4 { // every successful request: a has no TPOT bound now
		t.Errorf("met = %d, want 4", s.SLA.Met)
	}
}

func TestNoSLOMeansEverySuccessMeets(t *testing.T) {
	s := summarizeHand(DefaultOptions())
	if s.SLA.Met != s.OK {
		t.Errorf("met = %d, want every successful request (%d)", s.SLA.Met, s.OK)
	}
}

func TestRunChecksFromStop(t *testing.T) {
	s := finishHand(DefaultOptions(), &results.Stop{Reason: "done", Extra: map[string]float64{
		results.ExtraRequestedRate: 10, results.ExtraAchievedRate: 8, results.ExtraMockLateP99: 15000, results.ExtraMockLateMax: 22000,
		results.ExtraMockSteps: 4321, results.ExtraPrefixQueries: 1000, results.ExtraPrefixHits: 250}})
	got := []float64{s.Rate.Requested, s.Rate.Achieved, s.MockStepLate.P99, s.MockStepLate.Max, s.MockStepLate.Steps,
		s.HitRate.Scraped}
	want := []float64{10, 8, 15, 22, 4321, 0.25}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rate, lateness, scraped hit (-want +got):\n%s", d)
	}
	// 8 < 0.95·10, late p99 15 ms > 25 % of TBT p50 50 ms, 20 % errors,
	// only 4 successful requests.
	if len(s.Warnings) != 4 {
		t.Errorf("warnings = %q, want 4", s.Warnings)
	}
}

// TestStopWarnings checks the warning each stop reason raises: its
// first warning, or none about the stop for a run that ran to its end.
func TestStopWarnings(t *testing.T) {
	tests := []struct {
		name   string
		stop   *results.Stop
		warmup time.Duration
		want   string // prefix of the first warning; "" for no stop warning
	}{
		{"killed", nil, 0, "the run was killed: "},
		{"interrupted", &results.Stop{Reason: "interrupted", Elapsed: 7 * time.Second}, 0,
			"the run was interrupted (after 7 s): "},
		// 5 requests replayed, 2 of them before the 1.5 s warm-up cut.
		{"error limit", &results.Stop{Reason: results.StopErrorLimit, Elapsed: 9500 * ms1}, 1500 * ms1,
			"the run was cut short on errors (5 requests replayed in 10 s): its error rate passed the limit"},
		{"done", &results.Stop{Reason: "done", Elapsed: 10 * time.Second}, 0, ""},
		{"max requests", &results.Stop{Reason: "max-requests", Elapsed: 10 * time.Second}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Warmup = tt.warmup
			s := finishHand(o, tt.stop)
			if tt.want == "" {
				for _, w := range s.Warnings {
					if strings.HasPrefix(w, "the run was") {
						t.Errorf("warning %q for a run that ran to its end", w)
					}
				}
				return
			}
			if len(s.Warnings) == 0 || !strings.HasPrefix(s.Warnings[0], tt.want) {
				t.Errorf("warnings = %q, want the first to start %q", s.Warnings, tt.want)
			}
		})
	}
}

// TestHostStealWarning: CPU steal above 2 % of the machine's CPU time
// raises the host warning with the share; at or under it, or when not
// measured, there is none.
func TestHostStealWarning(t *testing.T) {
	const prefix = "the host took CPU time from this machine during the run"
	tests := []struct {
		name  string
		extra map[string]float64
		want  string // the warning; "" for none
	}{
		{"heavy steal", map[string]float64{results.ExtraHostStealPct: 24.96, results.ExtraHostBusyPct: 40},
			prefix + " (CPU steal 25.0 % of CPU time): timing figures such as schedule lag and TTFT may reflect " +
				"the host rather than the policy"},
		{"just above", map[string]float64{results.ExtraHostStealPct: 2.06}, prefix + " (CPU steal 2.1 % of CPU time): " +
			"timing figures such as schedule lag and TTFT may reflect the host rather than the policy"},
		{"at the threshold", map[string]float64{results.ExtraHostStealPct: 2}, ""},
		{"quiet host", map[string]float64{results.ExtraHostStealPct: 0.2, results.ExtraHostBusyPct: 95}, ""},
		{"busy only", map[string]float64{results.ExtraHostBusyPct: 100}, ""},
		{"not measured", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkHostWarning(t, prefix, tt.extra, tt.want) })
	}
}

// checkHostWarning finishes a hand-made run whose stop carries extra and
// requires its warning that starts with prefix to be want ("" for none).
func checkHostWarning(t *testing.T, prefix string, extra map[string]float64, want string) {
	t.Helper()
	s := finishHand(DefaultOptions(), &results.Stop{Reason: "done", Extra: extra})
	var got string
	for _, w := range s.Warnings {
		if strings.HasPrefix(w, prefix) {
			got = w
		}
	}
	if got != want {
		t.Errorf("host warning %q, want %q (all: %q)", got, want, s.Warnings)
	}
}

// TestHostLoadWarning: a load average above 2 threads a CPU at the
// run's end raises the load warning; a busy host with a load the CPUs
// carry (CPU servers' own threads), or no load recorded, does not.
func TestHostLoadWarning(t *testing.T) {
	const prefix = "the machine had more threads to run than CPUs at the end of the run"
	tests := []struct {
		name  string
		extra map[string]float64
		want  string // the warning; "" for none
	}{
		{"overloaded", map[string]float64{results.ExtraHostBusyPct: 100, results.ExtraHostLoad1: 20, results.ExtraHostCPUs: 2},
			prefix + " (load average 20.0 on 2 CPUs): timing figures may reflect other processes rather than the servers and the policy"},
		{"busy CPU servers", map[string]float64{results.ExtraHostBusyPct: 98, results.ExtraHostLoad1: 2.4, results.ExtraHostCPUs: 2}, ""},
		{"at the threshold", map[string]float64{results.ExtraHostLoad1: 4, results.ExtraHostCPUs: 2}, ""},
		{"no CPUs recorded", map[string]float64{results.ExtraHostLoad1: 20}, ""},
		{"not measured", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkHostWarning(t, prefix, tt.extra, tt.want) })
	}
}

// TestOverRangeWarns: a request whose latency passes the histograms'
// ceiling is counted once and named in one warning.
func TestOverRangeWarns(t *testing.T) {
	h, rs := handRun()
	late := *rs[0]
	late.Intended, late.Released, late.Sent = 0, 0, 0
	late.FirstToken = histCeiling + time.Hour
	late.Done = late.FirstToken + time.Second
	a := NewAccumulator(h, DefaultOptions())
	for _, r := range append(rs, &late) {
		a.Add(r)
	}
	s := a.Finish(&results.Stop{Reason: "done", Elapsed: late.Done})
	if s.OverRange != 1 {
		t.Errorf("OverRange = %d, want 1 (one request, several latencies over)", s.OverRange)
	}
	var hits int
	for _, w := range s.Warnings {
		if strings.Contains(w, "above the histogram's range") && strings.Contains(w, "1 requests") {
			hits++
		}
	}
	if hits != 1 {
		t.Errorf("want one range warning naming 1 request, got %q", s.Warnings)
	}
	if clean := summarizeHand(DefaultOptions()); clean.OverRange != 0 {
		t.Errorf("hand run: OverRange = %d, want 0", clean.OverRange)
	}
}
