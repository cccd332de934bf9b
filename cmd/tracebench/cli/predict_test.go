package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// predictErrors runs predict and returns the error column by metric.
func predictErrors(t *testing.T, live, prof, out string, extra ...string) (map[string]float64, string) {
	t.Helper()
	var so, se bytes.Buffer
	args := append([]string{"predict", live, "--profile", prof, "--out", out}, extra...)
	if code := Run(args, &so, &se); code != 0 {
		t.Fatalf("predict exit %d: %s", code, se.String())
	}
	errs := map[string]float64{}
	for _, line := range strings.Split(so.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || (f[len(f)-1] != "%" && f[len(f)-1] != "pt") {
			continue
		}
		v, err := strconv.ParseFloat(f[len(f)-2], 64)
		if err != nil {
			continue
		}
		metric := strings.Join(f[:2], " ")
		errs[metric] = v
	}
	return errs, so.String()
}

func TestPredictSimAgainstItself(t *testing.T) {
	dir := t.TempDir()
	truth := writeProfile(t, dir, truthProfile)
	live := filepath.Join(dir, "live.jsonl")
	var so, se bytes.Buffer
	if code := Run([]string{"replay", "--sim", "2", "--mock-profile", truth, "--workload", "mixed", "-p", "requests=120",
		"--policy", "prefix-cache", "--out", live}, &so, &se); code != 0 {
		t.Fatalf("replay exit %d: %s", code, se.String())
	}
	// The same profile with other jitter draws predicts the run closely.
	errs, out := predictErrors(t, live, truth, filepath.Join(dir, "same"), "--sim-seed", "7")
	for _, m := range []string{"TTFT p50", "TPOT p50", "E2E p50", "server hit"} {
		v, ok := errs[m]
		if !ok {
			t.Fatalf("no %s error in:\n%s", m, out)
		}
		if math.Abs(v) > 5 {
			t.Errorf("%s error %.1f, want within 5 with the run's own profile:\n%s", m, v, out)
		}
	}
	if len(errs) < 8 {
		t.Fatalf("only %d error figures in:\n%s", len(errs), out)
	}
	report, err := os.ReadFile(filepath.Join(dir, "same", "report.md"))
	if err != nil || !strings.Contains(string(report), "## Prediction error") {
		t.Fatalf("report.md lacks the prediction error section (%v)", err)
	}
	// --record adds the p50 errors to the profile file, and a bench on
	// that profile quotes them in its verdict.
	if _, out := predictErrors(t, live, truth, filepath.Join(dir, "rec"), "--record"); !strings.Contains(out, "recorded in") {
		t.Fatalf("--record: no confirmation in:\n%s", out)
	}
	p, err := profile.Load(truth)
	if err != nil || len(p.Validation) != 1 || p.Validation[0].Run != live {
		t.Fatalf("profile after --record: %+v, %v", p, err)
	}
	var bo, be bytes.Buffer
	if code := Run([]string{"bench", "--sim", "2", "--mock-profile", truth, "--policies", "round-robin,prefix-cache",
		"--max-requests", "40", "--out", filepath.Join(dir, "bench")}, &bo, &be); code != 0 {
		t.Fatalf("bench exit %d: %s", code, be.String())
	}
	if !strings.Contains(bo.String(), "predicted 1 measured run(s) with p50 errors up to") {
		t.Fatalf("bench verdict does not quote the recorded errors:\n%s", bo.String())
	}
	var ro, re bytes.Buffer
	if code := Run([]string{"predict", live, "--profile", "fast", "--record", "--out", filepath.Join(dir, "x")}, &ro, &re); code != ExitUsage ||
		!strings.Contains(re.String(), "built-in profile") {
		t.Fatalf("--record on a built-in profile: exit %d, %q", code, re.String())
	}
	// A ten times faster profile is far off: the comparison can fail.
	errs, out = predictErrors(t, live, "fast", filepath.Join(dir, "fast"))
	if e := errs["TPOT p50"]; e > -50 {
		t.Fatalf("fast profile: TPOT p50 error %.1f %%, want far below -50 %%:\n%s", e, out)
	}
}

func TestPredictBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"predict", "x.jsonl"}, "--profile", ExitUsage},
		{[]string{"predict", "x.jsonl", "--profile", "nope"}, "neither a built-in profile", ExitUsage},
		{[]string{"predict", filepath.Join(dir, "missing.jsonl"), "--profile", "fast"}, "missing.jsonl", ExitError},
	} {
		var so, se bytes.Buffer
		code := Run(tc.args, &so, &se)
		if code != tc.code || !strings.Contains(se.String(), tc.want) {
			t.Errorf("%v: exit %d, %q: want exit %d with %q", tc.args, code, se.String(), tc.code, tc.want)
		}
	}
}
