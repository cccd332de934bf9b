package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
)

// Small, fast versions of the policy experiments in docs/experiments.md,
// run through the command line in virtual time (--sim). The simulator is
// deterministic, so the margins guard the qualitative result, not noise.

// experimentTrace returns the path of a public trace in ../shared/traces
// (relative to the repository root), skipping the test when it is absent.
func experimentTrace(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "..", "shared", "traces", rel)
	if _, err := os.Stat(p); err != nil {
		accuracySkip(t, "shared trace %s not present (%v): the public traces live in ../shared/traces beside the repository", p, err)
	}
	return p
}

// simReplay runs `tracebench replay` with args and --out in a temporary
// directory and returns the results file and its Summary.
func simReplay(t *testing.T, args ...string) (string, *metrics.Summary) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results.jsonl")
	var stdout, stderr bytes.Buffer
	if code := Run(append(args, "--out", out), &stdout, &stderr); code != ExitOK {
		t.Fatalf("replay %v: exit %d; stderr:\n%s", args, code, stderr.String())
	}
	sum, err := metrics.Summarize(out, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != sum.Requests || sum.Requests == 0 {
		t.Fatalf("replay %v: %d of %d requests ok (errors %v)", args, sum.OK, sum.Requests, sum.Errors)
	}
	return out, sum
}

// pickedBackends reads the backend column of a results file, in request
// sequence order.
func pickedBackends(t *testing.T, path string) []int {
	t.Helper()
	bySeq := map[int64]int{} // seq counts from 0
	eachResult(t, openResults(t, path), func(res *results.Result) { bySeq[res.Seq] = res.Backend })
	out := make([]int, len(bySeq))
	for seq, b := range bySeq {
		if seq < 0 || int(seq) >= len(out) {
			t.Fatalf("%s: seq %d outside 0..%d", path, seq, len(out)-1)
		}
		out[seq] = b
	}
	return out
}

// TestExperimentPrefixRoutersOnMooncake is experiment 1 on the first 800
// Mooncake requests: prefix-aware routers hit the servers' prefix caches
// more often and have a lower TTFT p50 than random and round-robin, with
// no starved replica, and the same seed gives the same picks (a rerun of
// the first 200 requests picks as the first 200 of the longer run: the
// simulation is causal).
func TestExperimentPrefixRoutersOnMooncake(t *testing.T) {
	skipSlowUnderRace(t)
	trace := experimentTrace(t, "mooncake/conversation_trace.jsonl")
	run := func(router string, n int) (string, *metrics.Summary) {
		return simReplay(t, "replay", "--trace", trace, "--sim", "4", "--mock-profile", "long-context",
			"--time-scale", "2", "--max-requests", strconv.Itoa(n), "--seed", "1", "--policy", router)
	}
	_, random := run("random", 800)
	_, rr := run("round-robin", 800)
	for _, router := range []string{"prefix-cache", "approx-prefix", "cache-aware"} {
		t.Run(router, func(t *testing.T) {
			path, s := run(router, 800)
			t.Logf("server hit %.1f %% (random %.1f %%, round-robin %.1f %%), TTFT p50 %.0f ms (random %.0f, round-robin %.0f), request CV %.3f",
				100*s.HitRate.Server, 100*random.HitRate.Server, 100*rr.HitRate.Server, s.TTFT.P50, random.TTFT.P50, rr.TTFT.P50, s.Balance.CVRequests)
			for _, base := range []*metrics.Summary{random, rr} {
				if !(s.HitRate.Server > base.HitRate.Server+0.05) {
					t.Errorf("server hit rate %.3f, want > %s's %.3f + 0.05", s.HitRate.Server, base.Header.Router, base.HitRate.Server)
				}
				if !(s.TTFT.P50 < base.TTFT.P50) {
					t.Errorf("TTFT p50 %.0f ms, want < %s's %.0f ms", s.TTFT.P50, base.Header.Router, base.TTFT.P50)
				}
			}
			checkNoStarvedBackend(t, s)
			again, _ := run(router, 200)
			if d := cmp.Diff(pickedBackends(t, path)[:200], pickedBackends(t, again)); d != "" {
				t.Errorf("same seed, different picks (-first +second):\n%s", d)
			}
		})
	}
}

// checkNoStarvedBackend wants every backend to get at least half its fair
// share of requests and the request CV under 0.1.
func checkNoStarvedBackend(t *testing.T, s *metrics.Summary) {
	t.Helper()
	fair := float64(s.Requests) / float64(len(s.Backends))
	for _, b := range s.Backends {
		if float64(b.Requests) < fair/2 {
			t.Errorf("backend %d got %d requests, under half the fair share %.0f", b.Index, b.Requests, fair)
		}
	}
	if !(s.Balance.CVRequests < 0.1) {
		t.Errorf("request CV over backends %.3f, want < 0.1", s.Balance.CVRequests)
	}
}

// TestExperimentMultiBinClosedForm is experiment 2 on small saturated
// workloads: batches of B = 8 served for as long as their longest member
// under the linear token-time model, oracle output lengths; the measured
// throughput gain of multi-bin over one bin is within 3 points of the
// closed form (docs/architecture.md). Preset linear is a continuous engine that the
// static multi-bin queue feeds one whole batch at a time (no gather wait,
// the paper's exact setting); linear-static batches in the engine and
// waits its 5 ms gather window per batch, negligible against batches of
// hundreds of tokens.
func TestExperimentMultiBinClosedForm(t *testing.T) {
	skipSlowUnderRace(t)
	uniform2, err := policies.MultiBinGainUniform(50, 1000, 8, 2)
	if err != nil {
		t.Fatal(err)
	}
	uniform4, err := policies.MultiBinGainUniform(50, 1000, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, preset string
		lo, hi, n    int
		bins         string
		want         float64 // closed-form gain
	}{
		{"integers 1..20 K=2", "linear", 1, 20, 4000, "boundaries=11", discreteGain(t, 11)},                            // +27.4 %
		{"integers 1..20 K=4", "linear", 1, 20, 4000, "boundaries=6,11,16", discreteGain(t, 6, 11, 16)},                // +48.2 %
		{"continuous 50..1000 K=2 static engine", "linear-static", 50, 1000, 4000, "boundaries=525", uniform2},         // +26.0 %
		{"continuous 50..1000 K=4 static engine", "linear-static", 50, 1000, 4000, "boundaries=288,525,763", uniform4}, // +44.9 %
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := func(bins string) float64 {
				_, s := simReplay(t, "replay", "--workload", "uniform-lengths", "-p", "input_min=1", "-p", "input_max=1",
					"-p", "output_min="+strconv.Itoa(tc.lo), "-p", "output_max="+strconv.Itoa(tc.hi),
					"-p", "requests="+strconv.Itoa(tc.n), "--rate", "100000", "--arrival", "constant", "--sim", "2",
					"--mock-profile", tc.preset, "--policy", "least-request", "--queue", "multi-bin",
					"--queue-param", bins, "--queue-param", "b_min=8", "--queue-param", "b_max=8", "--backend-capacity", "8")
				return s.Throughput.Requests
			}
			one, binned := run("k=1"), run(tc.bins)
			t.Logf("K=1 %.2f req/s, %s %.2f req/s: gain %+.1f %%, closed form %+.1f %%", one, tc.bins, binned, 100*(binned/one-1), 100*tc.want)
			if got := binned/one - 1; math.Abs(got-tc.want) > 0.03 {
				t.Errorf("gain %+.1f %% (%.2f vs %.2f req/s), closed form %+.1f %%: want within 3 points",
					100*got, binned, one, 100*tc.want)
			}
		})
	}
}

// discreteGain is the closed-form gain of the bins cut at cuts for
// integer lengths 1..20 and B = 8.
func discreteGain(t *testing.T, cuts ...int) float64 {
	t.Helper()
	g, err := policies.MultiBinGainDiscrete(1, 20, 8, cuts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestExperimentVTCArenaTrace is experiment 3 on the Chatbot Arena trace:
// one replica with 10,000 tokens of KV, three requests in flight at most,
// the rest waiting in the client Queue. vtc cuts the max and mean service
// difference between users to under 0.6 × fcfs's at throughput within
// 5 %.
func TestExperimentVTCArenaTrace(t *testing.T) {
	trace := experimentTrace(t, "vtc_lmsys_arena/real_trace.jsonl")
	run := func(queue string) *metrics.Summary {
		_, s := simReplay(t, "replay", "--trace", trace, "--sim", "1", "--mock-blocks", "625",
			"--backend-capacity", "3", "--policy", "round-robin", "--queue", queue)
		return s
	}
	fcfs, vtc := run("fcfs"), run("vtc")
	f, v := fcfs.Fairness, vtc.Fairness
	t.Logf("service difference max %.1f → %.1f, mean %.1f → %.1f; throughput %.3f → %.3f req/s (fcfs → vtc)",
		f.ServiceDiffMax, v.ServiceDiffMax, f.ServiceDiffMean, v.ServiceDiffMean, fcfs.Throughput.Requests, vtc.Throughput.Requests)
	if !(v.ServiceDiffMax < 0.6*f.ServiceDiffMax) || !(v.ServiceDiffMean < 0.6*f.ServiceDiffMean) {
		t.Errorf("service difference max %.1f mean %.1f under vtc, %.1f and %.1f under fcfs: want vtc < 0.6 × fcfs",
			v.ServiceDiffMax, v.ServiceDiffMean, f.ServiceDiffMax, f.ServiceDiffMean)
	}
	if r := vtc.Throughput.Requests / fcfs.Throughput.Requests; math.Abs(r-1) > 0.05 {
		t.Errorf("throughput %.3f req/s under vtc, %.3f under fcfs: want within 5 %%",
			vtc.Throughput.Requests, fcfs.Throughput.Requests)
	}
}

// TestExperimentVTCTwoOverloadedUsers is experiment 3's second part,
// shortened to 300 s: users u0 at 3 req/s and u1 at 1.5 req/s (256 input
// and 256 output tokens each) on one replica that serves about 2 req/s.
// Between 30 s and 300 s fcfs serves them in proportion to what they sent
// (about 2 : 1) and vtc equally.
func TestExperimentVTCTwoOverloadedUsers(t *testing.T) {
	tests := []struct {
		queue string
		fair  func(demandRatio float64) (lo, hi float64) // bounds of u0's service / u1's
	}{
		{"fcfs", func(d float64) (float64, float64) { return 0.9 * d, 1.1 * d }},
		{"vtc", func(float64) (float64, float64) { return 0.95, 1.05 }},
	}
	for _, tc := range tests {
		t.Run(tc.queue, func(t *testing.T) {
			_, s := simReplay(t, "replay", "--workload", "multi-tenant", "-p", "users=2", "-p", "heavy_share=0.6666667",
				"-p", "length_spread=0", "-p", "system_len=0", "-p", "input_len=256", "-p", "output_len=256",
				"-p", "jitter=0", "-p", "rate=4.5", "-p", "requests=1350", "--sim", "1", "--mock-blocks", "625",
				"--backend-capacity", "4", "--policy", "round-robin", "--queue", tc.queue)
			demand := userDemandRatio(t, s)
			if demand < 1.8 || demand > 2.3 {
				t.Fatalf("u0 demands %.2f × u1's, want about 2", demand)
			}
			u0 := serviceBetween(s.Series.UserService["u0"], 30, 300)
			u1 := serviceBetween(s.Series.UserService["u1"], 30, 300)
			lo, hi := tc.fair(demand)
			t.Logf("%s: u0 %.0f, u1 %.0f tokens in 30..300 s (%.2f : 1), demand %.2f : 1", tc.queue, u0, u1, u0/u1, demand)
			if r := u0 / u1; !(r >= lo && r <= hi) {
				t.Errorf("service u0 %.0f, u1 %.0f tokens in 30..300 s: ratio %.2f, want %.2f..%.2f (demand ratio %.2f)",
					u0, u1, r, lo, hi, demand)
			}
		})
	}
}

// userDemandRatio is u0's demand over u1's from the per-user rows.
func userDemandRatio(t *testing.T, s *metrics.Summary) float64 {
	t.Helper()
	d := map[string]float64{}
	for _, u := range s.Users {
		d[u.User] = u.Demand
	}
	if d["u0"] == 0 || d["u1"] == 0 {
		t.Fatalf("per-user rows %+v: want users u0 and u1", s.Users)
	}
	return d["u0"] / d["u1"]
}

// serviceBetween is the growth of a cumulative service series between
// from and to seconds, interpolating linearly between bucket ends (the
// series is 0 at time 0).
func serviceBetween(pts []metrics.Point, from, to float64) float64 {
	return cumulativeAt(pts, to) - cumulativeAt(pts, from)
}

func cumulativeAt(pts []metrics.Point, at float64) float64 {
	prevT, prevV := 0.0, 0.0
	for _, p := range pts {
		if p.At >= at {
			if p.At == prevT {
				return p.Value
			}
			return prevV + (p.Value-prevV)*(at-prevT)/(p.At-prevT)
		}
		prevT, prevV = p.At, p.Value
	}
	return prevV
}
