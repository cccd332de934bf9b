package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// truthProfile is the engine the calibration tests fit, with figures the
// fit does not start from.
const truthProfile = `name: truth
latency:
  c_prefill: 80us
  c_decode: 0s
  beta: 7ms
  gamma: 0.4
  jitter: 0.05
`

// simRun replays a uniform-lengths workload at rate on one simulated
// engine with the profile file and returns the results file.
func simRun(t testing.TB, dir, prof string, rate float64, n int, extra ...string) string {
	t.Helper()
	out := filepath.Join(dir, fmt.Sprintf("run-%g-%d.jsonl", rate, n))
	args := append([]string{"replay", "--sim", "1", "--mock-profile", prof, "--workload", "uniform-lengths",
		"-p", "input_min=50", "-p", "input_max=2000", "-p", "output_min=20", "-p", "output_max=200",
		"-p", fmt.Sprintf("rate=%g", rate), "-p", fmt.Sprintf("requests=%d", n), "--seed", fmt.Sprint(int(rate * 10)),
		"--policy", "round-robin", "--out", out}, extra...)
	var so, se bytes.Buffer
	if code := Run(args, &so, &se); code != 0 {
		t.Fatalf("replay exit %d: %s", code, se.String())
	}
	return out
}

func writeProfile(t testing.TB, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "truth.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCalibrateRecoversSimParameters fits runs of a simulated engine at
// three load levels and checks every fitted parameter against the truth.
func TestCalibrateRecoversSimParameters(t *testing.T) {
	fit, out := fitSimRuns(t, truthProfile, false)
	l := fit.Latency
	checkWithin(t, out, 0.05, []fitCheck{
		{"c_prefill", l.CPrefill.D().Seconds(), 80e-6},
		{"beta", l.Beta.D().Seconds(), 7e-3},
		{"gamma", l.Gamma, 0.4},
	})
	if l.CDecode != 0 {
		t.Errorf("c_decode = %v, want 0", l.CDecode.D())
	}
	if !strings.Contains(out, "± std err") || !strings.Contains(out, "residuals tpot") {
		t.Errorf("output lacks the parameter table or residuals:\n%s", out)
	}
	if fit.Fit == nil || len(fit.Fit.Params) != 7 || len(fit.Fit.Residuals) != 2 {
		t.Errorf("profile fit section %+v", fit.Fit)
	}
}

func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	truth := writeProfile(t, dir, truthProfile)
	few := simRun(t, dir, truth, 1, 10)
	single := simRun(t, dir, truth, 0.05, 40) // one request at a time
	failed := filepath.Join(dir, "failed.jsonl")
	var so, se bytes.Buffer
	if code := Run([]string{"replay", "--mock", "1", "--mock-profile", "fast", "--mock-set", "error_rate=1", "--workload", "uniform-lengths",
		"-p", "requests=5", "-p", "rate=50", "--policy", "round-robin", "--out", failed}, &so, &se); code != 0 {
		t.Fatalf("replay exit %d: %s", code, se.String())
	}
	other := filepath.Join(dir, "other.jsonl")
	data, err := os.ReadFile(few)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, bytes.Replace(data, []byte(`"model":""`), []byte(`"model":"llama"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"too few", []string{few}, "only 10 successful requests with 2 or more output tokens", ExitError},
		{"single level", []string{single}, "never more than one request was in flight", ExitUsage},
		{"single level names the flag", []string{single}, "or set --partial to keep", ExitUsage},
		{"single level names the probe", []string{single}, "'tracebench calibrate --target URL' probes", ExitUsage},
		{"failed only", []string{failed}, "no successful request", ExitError},
		{"mixed models", []string{few, other}, `ran model "llama"`, ExitError},
		{"missing file", []string{filepath.Join(dir, "nope.jsonl")}, "nope.jsonl", ExitError},
		{"unknown engine replay mode", []string{"--engine-replay", "bogus", single}, `--engine-replay "bogus": want auto, on or off`, ExitUsage},
		{"negative host cache", []string{"--host-cache-tokens", "-5", single}, "--host-cache-tokens -5: want ≥ 0", ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(append([]string{"calibrate"}, tc.args...), &out, &errOut)
			msg := strings.TrimSpace(errOut.String())
			if code != tc.code || !strings.Contains(msg, tc.want) || strings.Count(msg, "\n") > 0 {
				t.Fatalf("exit %d, stderr %q: want exit %d and one line containing %q", code, msg, tc.code, tc.want)
			}
		})
	}
	// --partial accepts the single level and says what was not fitted.
	var out, errOut bytes.Buffer
	if code := Run([]string{"calibrate", "--partial", single}, &out, &errOut); code != 0 {
		t.Fatalf("--partial: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "warning: γ and c_decode not fitted") {
		t.Fatalf("--partial output lacks the warning:\n%s", out.String())
	}
}

// BenchmarkCalibrate10k fits a 10,000-request results file (target: under
// 5 s per fit).
func BenchmarkCalibrate10k(b *testing.B) {
	dir := b.TempDir()
	truth := writeProfile(b, dir, truthProfile)
	file := simRun(b, dir, truth, 3, 10000)
	b.ResetTimer()
	for b.Loop() {
		var out bytes.Buffer
		if err := runCalibrate(&out, &calibrateOptions{files: []string{file}, from: "default"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/fit")
}

// slotTruthProfile is a per-slot (llama.cpp-like) engine whose decode step
// is linear in the batch with a batch of one cheaper than each further
// sequence: β below 0 with c_decode, as llama.cpp's CPU backend measures.
const slotTruthProfile = `name: slot-truth
engine:
  cache: per-slot
  max_num_seqs: 4
  max_num_batched_tokens: 2048
  num_gpu_blocks: 1024
  block_size: 16
  max_model_len: 4096
latency:
  c_prefill: 120us
  c_decode: 1.5ms
  beta: -0.45ms
  gamma: 0
  jitter: 0.05
`

// TestCalibrateNegativeBetaPerSlot fits runs of a per-slot engine whose
// β is below 0 and checks the fit keeps it there, with c_decode, rather
// than clamping it to 0 and overpricing the batch of one.
func TestCalibrateNegativeBetaPerSlot(t *testing.T) {
	fit, out := fitSimRuns(t, slotTruthProfile, true)
	l := fit.Latency
	if fit.Engine.Cache != profile.CachePerSlot {
		t.Fatalf("fitted cache %q, want per-slot", fit.Engine.Cache)
	}
	checkWithin(t, out, 0.1, []fitCheck{
		{"beta", l.Beta.D().Seconds(), -0.45e-3},
		{"c_decode", l.CDecode.D().Seconds(), 1.5e-3},
		{"step at batch 1", (l.Beta.D() + l.CDecode.D()).Seconds(), 1.05e-3},
	})
	if l.Gamma != 0 || !strings.Contains(out, "β came out below 0") {
		t.Errorf("gamma %g, want 0, and a warning that β is below 0:\n%s", l.Gamma, out)
	}
}

// fitSimRuns simulates the truth profile text at 1, 4 and 12 req/s (150
// requests each) and calibrates the three runs, starting from the truth
// (--from) when fromTruth, else from the default profile; it returns the
// fitted profile and calibrate's output.
func fitSimRuns(t *testing.T, truthText string, fromTruth bool) (*profile.Profile, string) {
	t.Helper()
	dir := t.TempDir()
	truth := writeProfile(t, dir, truthText)
	args := []string{"calibrate", "-o", filepath.Join(dir, "fit.yaml")}
	if fromTruth {
		args = append(args, "--from", truth)
	}
	for _, rate := range []float64{1, 4, 12} {
		args = append(args, simRun(t, dir, truth, rate, 150))
	}
	var out, errOut bytes.Buffer
	if code := Run(args, &out, &errOut); code != 0 {
		t.Fatalf("calibrate exit %d: %s", code, errOut.String())
	}
	fit, err := profile.Load(filepath.Join(dir, "fit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return fit, out.String()
}

// fitCheck is a fitted figure and the truth it should be near.
type fitCheck struct {
	name      string
	got, want float64
}

// checkWithin reports each figure off its truth by more than tol
// (relative), with calibrate's output.
func checkWithin(t *testing.T, out string, tol float64, checks []fitCheck) {
	t.Helper()
	for _, c := range checks {
		if e := math.Abs(c.got/c.want - 1); e > tol {
			t.Errorf("%s = %.4g, want %.4g within %.0f %% (off by %.1f %%)\n%s", c.name, c.got, c.want, 100*tol, 100*e, out)
		}
	}
}
