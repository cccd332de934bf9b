package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/verdict"
)

// sweepFor parses args as `tracebench sweep` flags (with --out a temp
// dir) and runs the sweep in-process.
func sweepFor(t *testing.T, ctx context.Context, args ...string) (*verdict.Sweep, bench.SweepSpec, error) {
	t.Helper()
	o := &sweepOptions{}
	cmd := sweepCommand(o)
	if err := cmd.ParseFlags(append([]string{"--out", t.TempDir()}, args...)); err != nil {
		t.Fatal(err)
	}
	spec, err := o.prepare(cmd.Flags().Changed, io.Discard)
	if err != nil {
		return nil, spec, err
	}
	res, err := bench.Sweep(ctx, spec)
	return res, spec, err
}

// sweepRun is one run of a sweep as compared between sweeps.
type sweepRun struct {
	Policy     string
	Rate       float64
	Attainment float64
	Pass       bool
}

func probes(s *verdict.Sweep) []sweepRun {
	var out []sweepRun
	for _, p := range s.Policies {
		for _, st := range p.Steps {
			out = append(out, sweepRun{p.Policy, st.Rate, st.Summary.SLA.Attainment, st.Pass})
		}
	}
	return out
}

// TestSweepDeterministic runs the same virtual-time sweep twice: the
// same seed gives the same runs, figures and answer.
func TestSweepDeterministic(t *testing.T) {
	args := []string{"--sim", "4", "--policies", "prefix-cache", "--max-requests", "400",
		"--slo-ttft", "500ms", "--slo-tpot", "50ms"}
	var csvs [2]bytes.Buffer
	var runs [2][]sweepRun
	for i := range runs {
		s, _, err := sweepFor(t, context.Background(), args...)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = probes(s)
		if err := reports.WriteSweepCSV(&csvs[i], s); err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Policies {
			if !(p.Sustained > 0) || !(p.Broken > p.Sustained) || !p.Converged {
				t.Fatalf("%s: sustained %v broken %v converged %v", p.Policy, p.Sustained, p.Broken, p.Converged)
			}
		}
	}
	if d := cmp.Diff(runs[0], runs[1]); d != "" {
		t.Errorf("second sweep differs (-first +second):\n%s", d)
	}
	if d := cmp.Diff(csvs[0].String(), csvs[1].String()); d != "" {
		t.Errorf("sweep.csv differs (-first +second):\n%s", d)
	}
}

// skipLongSweep skips a long virtual-time comparison with -short or
// -race (single-goroutine simulation: the detector finds nothing there
// that the shorter sweep tests do not exercise).
func skipLongSweep(t *testing.T, what string) {
	t.Helper()
	if testing.Short() || sweepRace {
		t.Skipf("%s: skipped with -short and -race", what)
	}
}

// TestSweepSearchMatchesFineLadder: on the mixed workload with 4
// simulated backends the search finds each policy's sustained rate
// within 5 % of what a fixed ladder in 2 % steps finds, in at most 10
// runs. The ladder starts at 90 % of the search's answer (every rate
// the search tried below its answer passed).
func TestSweepSearchMatchesFineLadder(t *testing.T) {
	skipLongSweep(t, "about 40 simulated runs of 2000 requests")
	for _, policy := range []string{"round-robin", "prefix-cache"} {
		t.Run(policy, func(t *testing.T) {
			s, _, err := sweepFor(t, context.Background(), "--sim", "4", "--policies", policy)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Policies[0]
			if n := len(got.Steps); n > 10 || !got.Converged {
				t.Fatalf("search: %d runs, converged %v; want at most 10 and converged", n, got.Converged)
			}
			var ladder []string
			for r := 0.9 * got.Sustained; r < 1.3*got.Sustained; r *= 1.02 {
				ladder = append(ladder, fmt.Sprintf("%.3f", r))
			}
			lad, _, err := sweepFor(t, context.Background(), "--sim", "4", "--policies", policy,
				"--rates", strings.Join(ladder, ","))
			if err != nil {
				t.Fatal(err)
			}
			want := lad.Policies[0].Sustained
			if d := math.Abs(got.Sustained-want) / want; d > 0.05 {
				t.Errorf("search %.1f req/s vs ladder %.1f req/s: %.1f %% apart, want within 5 %%", got.Sustained, want, 100*d)
			}
			t.Logf("%s: search %.1f req/s in %d runs, ladder %.1f req/s in %d runs", policy, got.Sustained,
				len(got.Steps), want, len(lad.Policies[0].Steps))
		})
	}
}

// TestSweepPrefixAwareSustainsMore: on the mixed workload (shared system
// prompts, growing multi-turn contexts) prefix-cache sustains a higher
// rate than round-robin at the same SLA.
func TestSweepPrefixAwareSustainsMore(t *testing.T) {
	s, _, err := sweepFor(t, context.Background(), "--sim", "4", "--policies", "round-robin,prefix-cache",
		"--max-requests", "400", "--tolerance", "0.1")
	if err != nil {
		t.Fatal(err)
	}
	if s.Baseline != "round-robin" || len(s.Policies) != 2 {
		t.Fatalf("baseline %q, %d policies", s.Baseline, len(s.Policies))
	}
	if g := s.Gain(&s.Policies[1]); !(g > 0.1) {
		t.Errorf("prefix-cache gain over round-robin %.3f, want > 10 %% (sustained %v vs %v)", g,
			s.Policies[1].Sustained, s.Policies[0].Sustained)
	}
}

// TestSweepOfferedRate checks each run offers the rate asked for: with
// --vary time-scale the workload's own times divided by rate/native
// (exact), with --vary rate a Poisson process of that mean.
func TestSweepOfferedRate(t *testing.T) {
	tests := []struct {
		vary string
		tol  float64
	}{{"time-scale", 0.001}, {"rate", 0.15}}
	for _, tc := range tests {
		t.Run(tc.vary, func(t *testing.T) {
			s, sw, err := sweepFor(t, context.Background(), "--sim", "2", "--policies", "round-robin",
				"--max-requests", "200", "--vary", tc.vary, "--rates", "0.5x,2x")
			if err != nil {
				t.Fatal(err)
			}
			if !(sw.Native > 1) {
				t.Fatalf("native rate %v", sw.Native)
			}
			for i, st := range s.Policies[0].Steps {
				if want := sw.Native * []float64{0.5, 2}[i]; math.Abs(st.Rate-want) > 1e-9*want {
					t.Fatalf("run %d rate %v, want %v", i, st.Rate, want)
				}
				got := arrivalRate(t, filepath.Join(sw.Out, st.Results))
				if d := math.Abs(got-st.Rate) / st.Rate; d > tc.tol {
					t.Errorf("run %d: arrivals at %.3f req/s, offered %.3f (%.1f %% off)", i, got, st.Rate, 100*d)
				}
			}
		})
	}
}

// arrivalRate is (n − 1) / (last − first intended arrival) of a results
// file.
func arrivalRate(t *testing.T, path string) float64 {
	t.Helper()
	var first, last time.Duration
	n := 0
	eachResult(t, openResults(t, path), func(res *results.Result) {
		at := res.Intended
		if n == 0 || at < first {
			first = at
		}
		last = max(last, at)
		n++
	})
	if n < 2 {
		t.Fatalf("read %s: %d results, want 2 or more", path, n)
	}
	return float64(n-1) / (last - first).Seconds()
}

// TestSweepErrorStop: when every run fails more than --max-error-rate
// of its requests (prompts over the mock's context length), the error
// limit cuts each policy's first run short, the policy stops there and
// says so, and it reads as broken by errors with the run cut short, in
// a search and on a ladder.
func TestSweepErrorStop(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		converged bool
	}{
		{"search", nil, false},
		{"ladder", []string{"--rates", "5,10,20"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _, err := sweepFor(t, context.Background(), append([]string{"--sim", "2", "--policies",
				"round-robin,least-request", "--max-requests", "100", "--mock-set", "max_model_len=400"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range s.Policies {
				if len(p.Steps) != 1 || p.Broken != p.Steps[0].Rate || p.Sustained != 0 || p.Steps[0].Pass ||
					p.Converged != tc.converged {
					t.Fatalf("%s: %d runs, broken %v sustained %v converged %v", p.Policy, len(p.Steps), p.Broken,
						p.Sustained, p.Converged)
				}
				if by := p.BrokeBy(s.MaxErrorRate); !strings.Contains(p.Stopped, "--max-error-rate") ||
					!strings.HasPrefix(by, "errors (") || !strings.HasSuffix(by, ", run cut short)") {
					t.Errorf("%s: stopped %q, broke by %q", p.Policy, p.Stopped, by)
				}
			}
		})
	}
}

// TestSweepCooldown: the cool-down passes between runs, never before
// the first, and an interrupt during it stops the sweep. The policies
// run one at a time (--jobs 1), as they do against live targets, where
// the cool-down matters.
func TestSweepCooldown(t *testing.T) {
	o := &sweepOptions{}
	cmd := sweepCommand(o)
	if err := cmd.ParseFlags([]string{"--out", t.TempDir(), "--sim", "2", "--policies", "round-robin,random",
		"--max-requests", "50", "--rates", "5,10", "--cooldown", "3s", "--jobs", "1"}); err != nil {
		t.Fatal(err)
	}
	sw, err := o.prepare(cmd.Flags().Changed, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	sw.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	res, err := bench.Sweep(context.Background(), sw)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second}, waits); d != "" {
		t.Errorf("cool-downs for 4 runs (-want +got):\n%s", d)
	}
	sw.Sleep = func(context.Context, time.Duration) error { return context.Canceled }
	res, err = bench.Sweep(context.Background(), sw)
	if !errors.Is(err, ErrInterrupted) || len(res.Policies) != 1 || len(res.Policies[0].Steps) != 1 {
		t.Errorf("interrupted cool-down: err %v, %d policies", err, len(res.Policies))
	}
}

// TestSweepInterrupted: a canceled context ends the sweep with
// ErrInterrupted.
func TestSweepInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := sweepFor(t, ctx, "--sim", "2", "--policies", "round-robin", "--max-requests", "50")
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
}

// TestSweepMooncakePrefixAware is the documented example in small: on a
// 600-request window of the Mooncake conversation trace, time-scaled,
// with 4 simulated long-context engines, the prefix-aware routers
// sustain a higher rate than round-robin at the same SLA.
func TestSweepMooncakePrefixAware(t *testing.T) {
	skipLongSweep(t, "about 25 simulated runs of long-context requests")
	path := filepath.Join("..", "..", "..", "..", "shared", "traces", "mooncake", "conversation_trace.jsonl")
	if _, err := os.Stat(path); err != nil {
		accuracySkip(t, "shared trace %s not present (%v): the public traces live in ../shared/traces beside the repository", path, err)
	}
	s, sw, err := sweepFor(t, context.Background(), "--sim", "4", "--mock-profile", "long-context", "--trace", path,
		"--max-requests", "600", "--vary", "time-scale", "--slo-ttft", "20s", "--slo-tpot", "200ms",
		"--policies", "round-robin,prefix-cache,cache-aware", "--tolerance", "0.08")
	if err != nil {
		t.Fatal(err)
	}
	// 600 requests over the trace's first 200 s or so: about 3 req/s.
	if !(sw.Native > 2 && sw.Native < 4) {
		t.Errorf("trace rate %.2f req/s, want about 3", sw.Native)
	}
	for _, p := range s.Policies[1:] {
		if g := s.Gain(&p); !(g > 0.05) {
			t.Errorf("%s sustains %.3g req/s, round-robin %.3g: gain %.1f %%, want > 5 %%", p.Policy, p.Sustained,
				s.Policies[0].Sustained, 100*g)
		}
	}
}
