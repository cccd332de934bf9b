//go:build !race

package cli

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/predict"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// fleetMaxHitPt is the server hit rate error, in points, the fleet
// verdict test aims at for every policy; beyond it the test marks the
// target missed in CI's accuracy summary, and beyond fleetHitBoundPt it
// fails. One request of a run's 60 over three seeds moves a policy's
// hit rate by about 1.7 points, and on this machine idle the errors
// measured were 1.3–3.8 points, so 3 is the target and twice it the
// bound that no run within the noise crosses.
const (
	fleetMaxHitPt   = 3
	fleetHitBoundPt = 6
)

// fleetBench is the live bench of the fleet verdict test: three policies
// over three seeds of a shared-prefix workload on which prefix-aware
// routing matters (4 system prompts of 384 words, 20 requests at 2
// req/s, below the two servers' capacity: about 10 s a run). At 4.7 req/s,
// twice what the servers served, the simulated hit rates ran 4–9 points
// high; at 2 req/s 1–4 points.
var fleetBench = []string{"--policies", "round-robin,least-request,prefix-cache", "--seeds", "3",
	"--workload", "shared-prefix", "-p", "groups=4", "-p", "prompts_per_group=8", "-p", "system_len=384",
	"-p", "question_len=32", "-p", "output_len=16", "--rate", "2", "--max-requests", "20", "--seed", "5"}

// TestRealEngineFleetVerdict is the whole loop on a fleet of two
// llama-servers (b7099, each bound to a CPU of its own, started as users
// start them: the host prompt cache on, no slot erase): calibrate from
// both, a fair live bench of three policies over three seeds (every run
// salted), and the prediction of the bench directory, which simulates
// the same seeds. It fails when a policy's simulated server hit rate is
// more than fleetMaxHitPt points from the measured one, or when a TTFT
// p50 or p90 difference between two policies that the live seeds show
// with 95 % confidence has the opposite sign in the simulation. It logs
// every figure first, and skips loudly instead when a live run's host
// was starved (hostStarved: steal over 5 % or both cores over 80 %
// busy), since which slot is free when a request arrives, hence the hit
// rate, and every latency then follow the machine's other load.
func TestRealEngineFleetVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: about three minutes against two llama-servers")
	}
	u1, pid1 := startLlamaServer(t, "llama-server-plain-metrics", "-c", "8192")
	u2, pid2 := startLlamaServer(t, "llama-server-plain-metrics", "-c", "8192")
	dir := t.TempDir()
	fit := filepath.Join(dir, "fit.yaml")
	start := time.Now()
	cpu0 := processCPU(pid1) + processCPU(pid2)
	var so, se bytes.Buffer
	if code := Run([]string{"calibrate", "--target", u1, "--target", u2, "--from", filepath.Join("testdata", "llama-cpp-np4.yaml"),
		"--probe-dir", filepath.Join(dir, "probe"), "--probe-budget", "45s", "--probe-max-prompt", "512", "-o", fit}, &so, &se); code != 0 {
		// The probe loads both servers at once, each on a core of its
		// own: when on average they ran under the share a quiet machine
		// gives, other processes held their cores and the fit's failure
		// measures the machine.
		if share := (processCPU(pid1) + processCPU(pid2) - cpu0).Seconds() / time.Since(start).Seconds() / 2; share < minProbeCPUShare {
			accuracySkip(t, "machine too starved to calibrate the llama-servers: each ran on average %.0f %% of the probe's wall time (want ≥ %.0f %%); calibrate said: %s",
				100*share, 100*minProbeCPUShare, strings.TrimSpace(se.String()))
		}
		t.Fatalf("calibrate exit %d: %s\n%s", code, se.String(), so.String())
	}
	t.Logf("calibrate (%v):\n%s", time.Since(start).Round(time.Second), so.String())
	b := filepath.Join(dir, "bench")
	so.Reset()
	se.Reset()
	start = time.Now()
	if code := Run(append([]string{"bench", "--target", u1, "--target", u2, "--out", b}, fleetBench...), &so, &se); code != 0 {
		t.Fatalf("bench exit %d: %s", code, se.String())
	}
	t.Logf("bench (%v):\n%s\n%s", time.Since(start).Round(time.Second), se.String(), so.String())
	prof, err := profile.Load(fit)
	if err != nil {
		t.Fatal(err)
	}
	res, err := predict.Dir(context.Background(), predict.DirSpec{Dir: b, Profile: prof, Out: filepath.Join(dir, "pred")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) > 0 || len(res.Policies) != 3 {
		t.Fatalf("predicted %d policies, skipped %q", len(res.Policies), res.Skipped)
	}
	for _, pp := range res.Policies {
		var tab strings.Builder
		_ = pp.Mean.WriteTable(&tab)
		t.Logf("%s:\n%s", pp.Policy, tab.String())
	}
	for _, pp := range res.Policies {
		for _, r := range pp.Runs {
			if why := hostStarved(r.Measured); why != "" {
				accuracySkip(t, "machine too starved to measure the llama-servers (%s, %s): the figures above are not a verdict", pp.Policy, why)
			}
		}
	}
	for _, pp := range res.Policies {
		for _, r := range pp.Mean.Rows {
			if !r.Points || math.Abs(r.Err) <= fleetMaxHitPt {
				continue
			}
			targetMissed(t, pp.Policy+" server hit error", r.Err, fleetMaxHitPt, fleetHitBoundPt, "pt")
			if !(math.Abs(r.Err) <= fleetHitBoundPt) {
				t.Errorf("%s: server hit rate measured %.1f %%, simulated %.1f %%: want within %d points",
					pp.Policy, r.Measured, r.Predicted, fleetHitBoundPt)
			}
		}
	}
	for _, m := range []string{"TTFT p50", "TTFT p90"} {
		for _, c := range fleetContradictions(res.Policies, m) {
			t.Error(c)
		}
	}
}

// ttftOf picks metric ("TTFT p50" or "TTFT p90") from a Summary, ms.
func ttftOf(s *metrics.Summary, metric string) float64 {
	if metric == "TTFT p90" {
		return s.TTFT.P90
	}
	return s.TTFT.P50
}

// fleetContradictions returns, for every pair of policies whose paired
// per-seed differences of metric exclude 0 at 95 % (Student t), a line
// when the simulation's mean difference has the opposite sign.
func fleetContradictions(pps []predict.PolicyPrediction, metric string) []string {
	var out []string
	for i := range pps {
		for j := i + 1; j < len(pps); j++ {
			a, b := pps[i], pps[j]
			n := min(len(a.Runs), len(b.Runs))
			live, sim := make([]float64, n), make([]float64, n)
			for k := range n {
				live[k] = ttftOf(a.Runs[k].Measured, metric) - ttftOf(b.Runs[k].Measured, metric)
				sim[k] = ttftOf(a.Runs[k].Predicted, metric) - ttftOf(b.Runs[k].Predicted, metric)
			}
			if n < 2 {
				continue
			}
			m, sd := stat.MeanStdDev(live, nil)
			h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975) * sd / math.Sqrt(float64(n))
			sm := stat.Mean(sim, nil)
			line := fmt.Sprintf("%s − %s, %s: live %+.1f ms (95 %% CI %+.1f to %+.1f), simulated %+.1f ms",
				a.Policy, b.Policy, metric, m, m-h, m+h, sm)
			if (m-h > 0 && sm < 0) || (m+h < 0 && sm > 0) {
				out = append(out, "opposite sign: "+line)
			}
		}
	}
	return out
}
