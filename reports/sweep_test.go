package reports

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/verdict"
)

// synthCurve is a policy's synthetic behaviour under load: attainment
// 1 / (1 + exp((rate − knee)/width)), and from errAbove req/s on (when
// set) a tenth of requests fail.
type synthCurve struct {
	policy      string
	knee, width float64
	errAbove    float64
}

// synthStep is the run of c at rate: 400 requests whose figures follow
// the curve, rounded so goldens are stable.
func synthStep(c synthCurve, rate float64) verdict.SweepStep {
	const n = 400
	att := 1 / (1 + math.Exp((rate-c.knee)/c.width))
	var errs int64
	if c.errAbove > 0 && rate >= c.errAbove {
		errs = n / 10
	}
	met := min(int64(math.Round(att*n)), n-errs)
	load := rate / c.knee
	secs := n/rate + 2
	s := &metrics.Summary{Requests: n, OK: n - errs, ErrorRate: float64(errs) / n,
		SLA:        metrics.SLA{Met: met, Attainment: float64(met) / n, Goodput: float64(met) / secs},
		Throughput: metrics.Throughput{Requests: float64(n-errs) / secs},
		TTFT:       metrics.Dist{Count: n - errs, P50: math.Round(40 + 300*load*load), P99: math.Round(150 + 1500*load*load)},
		TPOT:       metrics.Dist{Count: n - errs, P50: math.Round(10 + 15*load), P99: math.Round(20 + 60*load*load)}}
	missed := n - errs - met
	m := verdict.Misses{Requests: n, Errors: errs, TTFT: missed * 3 / 4, TPOT: missed / 3}
	name := c.policy + "-r" + strconv.FormatFloat(rate, 'g', 6, 64) + ".jsonl"
	return verdict.SweepStep{Rate: rate, Pass: att >= 0.9 && errs == 0, Summary: s, Misses: m, Results: "runs/" + name}
}

// synthProbes is one synthetic curve's sweep as bench's capacity search
// ran it (start 2.5, growth 2, tolerance 0.04): the rates it probed in
// order and its outcome.
type synthProbes struct {
	curve             synthCurve
	rates             []float64
	sustained, broken float64
	converged         bool
}

// synthSearches are the searches of synthSweep: round-robin the
// baseline, prefix-cache sustaining more, chwbl stopped by errors at
// its third rate.
var synthSearches = []synthProbes{
	{synthCurve{"round-robin", 8, 0.5, 0},
		[]float64{2.5, 5, 10, 7.0710678118654755, 5.946035575013606, 6.484197773255048, 6.771277734684464, 6.91954940981916},
		6.771277734684464, 6.91954940981916, true},
	{synthCurve{"prefix-cache", 11, 0.6, 0},
		[]float64{2.5, 5, 10, 7.0710678118654755, 8.408964152537145, 9.170040432046711, 9.576032806985737, 9.785720620877001},
		9.576032806985737, 9.785720620877001, true},
	{synthCurve{"chwbl", 12, 0.5, 7}, []float64{2.5, 5, 10}, 5, 10, false},
}

// synthSweep builds the sweep of synthetic curves that the search probed.
func synthSweep(t *testing.T) *verdict.Sweep {
	t.Helper()
	s := &verdict.Sweep{Title: "Synthetic sweep", Workload: "trace.jsonl (mooncake)", Fleet: "4 simulated mock engines",
		Method: verdict.SweepSearch, Vary: verdict.VaryTimeScale, NativeRate: 2.5, Requests: 400, Target: 0.9, MaxErrorRate: 0.05,
		SLO: metrics.SLO{TTFT: 2 * time.Second, TPOT: 100 * time.Millisecond}, Warmup: 5 * time.Second,
		Start: 2.5, Growth: 2, Tolerance: 0.04, MaxRuns: 12, Baseline: "round-robin"}
	for _, sp := range synthSearches {
		p := verdict.SweepPolicy{Policy: sp.curve.policy, Sustained: sp.sustained, Broken: sp.broken, Converged: sp.converged}
		for _, rate := range sp.rates {
			st := synthStep(sp.curve, rate)
			p.Steps = append(p.Steps, st)
			if st.Summary.ErrorRate > s.MaxErrorRate {
				p.Stopped = "error rate 10.0 % exceeds --max-error-rate 5.0 %"
			}
		}
		s.Policies = append(s.Policies, p)
	}
	return s
}

// checkSweepGolden compares got with testdata/sweep/name (-update
// rewrites it).
func checkSweepGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "sweep", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs from the golden file (-want +got; go test -update refreshes it):\n%s", name, d)
	}
}

func TestSweepGoldenFiles(t *testing.T) {
	s := synthSweep(t)
	dir := t.TempDir()
	if err := WriteSweepDir(dir, s); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sweep.md", "sweep.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		checkSweepGolden(t, f, b)
	}
	var tbl bytes.Buffer
	if err := WriteSweepTable(&tbl, s); err != nil {
		t.Fatal(err)
	}
	checkSweepGolden(t, "table.txt", tbl.Bytes())
	svg, err := os.ReadFile(filepath.Join(dir, "plots", "sweep-capacity.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || len(svg) < 5000 {
		t.Errorf("sweep plot: %d bytes, not a drawn SVG", len(svg))
	}
	for _, p := range s.Policies {
		if !bytes.Contains(svg, []byte(p.Policy)) {
			t.Errorf("sweep plot has no legend entry for %s", p.Policy)
		}
	}
}

// TestSweepSynthOutcome checks the synthetic sweep behind the goldens
// says what its curves imply.
func TestSweepSynthOutcome(t *testing.T) {
	s := synthSweep(t)
	rr, pc, ch := &s.Policies[0], &s.Policies[1], &s.Policies[2]
	// Curves cross 0.9 at knee + width·ln(1/9): 6.90 and 9.68 req/s.
	for _, c := range []struct {
		p    *verdict.SweepPolicy
		want float64
	}{{rr, 8 + 0.5*math.Log(1.0/9)}, {pc, 11 + 0.6*math.Log(1.0/9)}} {
		if c.p.Sustained > c.want || c.p.Sustained < 0.95*c.want {
			t.Errorf("%s sustained %.3f, want within 5 %% below %.3f", c.p.Policy, c.p.Sustained, c.want)
		}
	}
	if g := s.Gain(pc); !(g > 0.3 && g < 0.5) {
		t.Errorf("prefix-cache gain %.3f, want about 9.68/6.90 − 1 = 0.40", g)
	}
	// chwbl starts failing with errors at 7 req/s: its search stops at
	// the first run at or above 7 (2.5, 5, 10).
	if ch.Broken != 10 || ch.Sustained != 5 || ch.Stopped == "" || ch.BrokeBy(s.MaxErrorRate) != "errors (10.0 % > 5.0 % limit)" {
		t.Errorf("chwbl: sustained %v broken %v stopped %q broke by %q", ch.Sustained, ch.Broken, ch.Stopped,
			ch.BrokeBy(s.MaxErrorRate))
	}
	if !math.IsNaN(s.Gain(&verdict.SweepPolicy{})) {
		t.Error("gain of a policy that sustained nothing should be NaN")
	}
}

func TestMissesCause(t *testing.T) {
	tests := []struct {
		name  string
		m     verdict.Misses
		cause string
		n     int64
	}{
		{"none", verdict.Misses{Requests: 10}, "", 0},
		{"ttft", verdict.Misses{Requests: 10, TTFT: 4, TPOT: 2}, "TTFT", 4},
		{"tpot", verdict.Misses{Requests: 10, TTFT: 1, TPOT: 2, E2E: 1}, "TPOT", 2},
		{"e2e", verdict.Misses{Requests: 10, E2E: 3}, "E2E", 3},
		// A tie goes to errors, then TTFT.
		{"tie errors", verdict.Misses{Requests: 10, Errors: 2, TTFT: 2}, "errors", 2},
		{"tie ttft", verdict.Misses{Requests: 10, TTFT: 2, TPOT: 2}, "TTFT", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, n := tc.m.Cause()
			if c != tc.cause || n != tc.n {
				t.Errorf("Cause() = %q, %d; want %q, %d", c, n, tc.cause, tc.n)
			}
		})
	}
}

// TestBrokeBy checks what the "broke by" column says for the lowest
// failing run: the bound most requests missed, or errors when the run's
// error rate exceeded the sweep's limit, cut short or not.
func TestBrokeBy(t *testing.T) {
	done := &results.Stop{Reason: "done"}
	cut := &results.Stop{Reason: results.StopErrorLimit}
	// sum is a summary of 100 measured requests with errs failed.
	sum := func(stop *results.Stop, errs int64) *metrics.Summary {
		return &metrics.Summary{Requests: 100, OK: 100 - errs, ErrorRate: float64(errs) / 100, Stop: stop}
	}
	tests := []struct {
		name string
		st   verdict.SweepStep
		max  float64
		want string
	}{
		// Cut short at 2 errors in 100 while 8 requests missed TTFT.
		{"cut short", verdict.SweepStep{Summary: sum(cut, 2), Misses: verdict.Misses{Requests: 100, Errors: 2, TTFT: 8}}, 0.01,
			"errors (2.0 %, run cut short)"},
		{"cut in the warm-up", verdict.SweepStep{Summary: &metrics.Summary{Stop: cut}}, 0.05, "errors (run cut short)"},
		// A run that finished first with 2 % errors over a 1 % limit broke
		// on errors, though more requests missed TTFT.
		{"over the limit, not cut", verdict.SweepStep{Summary: sum(done, 2), Misses: verdict.Misses{Requests: 100, Errors: 2, TTFT: 8}},
			0.01, "errors (2.0 % > 1.0 % limit)"},
		{"over a zero limit", verdict.SweepStep{Summary: sum(done, 1), Misses: verdict.Misses{Requests: 100, Errors: 1, TPOT: 5}}, 0,
			"errors (1.0 % > 0.0 % limit)"},
		{"under the limit, TTFT misses", verdict.SweepStep{Summary: sum(done, 2), Misses: verdict.Misses{Requests: 100, Errors: 2, TTFT: 8}},
			0.05, "TTFT (8.0 %)"},
		{"under the limit, TPOT misses", verdict.SweepStep{Summary: sum(done, 2),
			Misses: verdict.Misses{Requests: 100, Errors: 2, TTFT: 1, TPOT: 6}}, 0.05, "TPOT (6.0 %)"},
		{"at the limit is not over", verdict.SweepStep{Summary: sum(done, 5), Misses: verdict.Misses{Requests: 100, Errors: 5, TTFT: 7}},
			0.05, "TTFT (7.0 %)"},
		// Within the limit errors still name the cause when most requests failed.
		{"errors most, within the limit", verdict.SweepStep{Summary: sum(done, 30), Misses: verdict.Misses{Requests: 100, Errors: 30, TTFT: 8}},
			1, "errors (30.0 %)"},
		{"no summary, over the limit", verdict.SweepStep{Misses: verdict.Misses{Requests: 50, Errors: 2, TTFT: 10}}, 0.01,
			"errors (4.0 % > 1.0 % limit)"},
		{"killed", verdict.SweepStep{Summary: sum(nil, 0), Misses: verdict.Misses{Requests: 100, TPOT: 15}}, 0.05, "TPOT (15.0 %)"},
		{"no requests", verdict.SweepStep{Summary: &metrics.Summary{Stop: done}}, 0.05, "no requests measured"},
		{"attainment", verdict.SweepStep{Summary: sum(done, 0), Misses: verdict.Misses{Requests: 100}}, 0.05, "attainment"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.st.Rate = 8
			p := &verdict.SweepPolicy{Policy: "p", Steps: []verdict.SweepStep{{Rate: 4, Pass: true, Summary: sum(done, 0)}, tc.st},
				Sustained: 4, Broken: 8}
			if got := p.BrokeBy(tc.max); got != tc.want {
				t.Errorf("BrokeBy(%v) = %q, want %q", tc.max, got, tc.want)
			}
			row := sweepRow(&verdict.Sweep{Baseline: "p", MaxErrorRate: tc.max}, p)
			if got := row[len(row)-2]; got != tc.want {
				t.Errorf("table's broke by = %q, want %q", got, tc.want)
			}
		})
	}
	if got := (&verdict.SweepPolicy{Steps: []verdict.SweepStep{{Rate: 4, Pass: true, Summary: sum(done, 0)}}, Sustained: 4}).BrokeBy(0.05); got != "" {
		t.Errorf("BrokeBy() with no failing rate = %q, want empty", got)
	}
}

// TestCountMisses writes a results file and counts its misses by bound.
func TestCountMisses(t *testing.T) {
	ms := time.Millisecond
	// ok builds a successful Result with TTFT ttft and TPOT tpot (10
	// tokens: done = first + 9·tpot).
	ok := func(user string, at, ttft, tpot time.Duration) *results.Result {
		return &results.Result{User: user, Intended: at, Sent: at, FirstToken: at + ttft,
			Done: at + ttft + 9*tpot, CompletionTokens: 10, Status: 200}
	}
	rs := []*results.Result{
		ok("a", 0, 500*ms, 10*ms),             // in the warm-up: left out
		ok("a", time.Second, 100*ms, 10*ms),   // meets all
		ok("a", time.Second, 300*ms, 10*ms),   // TTFT over 200 ms
		ok("a", time.Second, 300*ms, 30*ms),   // TTFT and TPOT over
		ok("a", time.Second, 100*ms, 30*ms),   // TPOT over 20 ms
		ok("vip", time.Second, 300*ms, 10*ms), // vip's own TTFT bound is 400 ms
		{User: "a", Intended: time.Second, Done: 2 * time.Second, ErrClass: results.ErrHTTP5xx, Status: 500},
		{User: "a", Intended: time.Second, Done: 2 * time.Second, Status: 200}, // no token: TTFT miss
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	testfixtures.WriteResults(t, path, results.Header{Policy: "p"}, rs)
	o := metrics.DefaultOptions()
	o.Warmup = 500 * ms
	o.SLO = metrics.SLO{TTFT: 200 * ms, TPOT: 20 * ms, PerUser: map[string]metrics.SLO{"vip": {TTFT: 400 * ms}}}
	got, err := verdict.CountMisses(path, o)
	if err != nil {
		t.Fatal(err)
	}
	want := verdict.Misses{Requests: 7, Errors: 1, TTFT: 3, TPOT: 2}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("misses (-want +got):\n%s", d)
	}
	if _, err := verdict.CountMisses(filepath.Join(t.TempDir(), "missing.jsonl"), o); err == nil {
		t.Error("a missing file should be an error")
	}
}

// TestSweepEmptyAndUnreached renders sweeps where nothing ran, nothing
// passed and nothing failed, without a plot where there is no data.
func TestSweepEmptyAndUnreached(t *testing.T) {
	allPass := synthStep(synthCurve{"round-robin", 100, 1, 0}, 4)
	allFail := synthStep(synthCurve{"least-request", 1, 0.1, 0}, 4)
	tests := []struct {
		name     string
		policies []verdict.SweepPolicy
		want     []string
		plot     bool
	}{
		{"empty", nil, []string{"## Sustained rate per policy"}, false},
		{"unreached", []verdict.SweepPolicy{{Policy: "round-robin", Steps: []verdict.SweepStep{allPass}, Sustained: 4}},
			[]string{"| round-robin | 4.00 | baseline |", "| > 4.00 |", "(not converged)"}, true},
		{"none passed", []verdict.SweepPolicy{{Policy: "least-request", Steps: []verdict.SweepStep{allFail}, Broken: 4}},
			[]string{"| least-request | none | n/a |", "| 4.00 | TTFT (75.0 %) |"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &verdict.Sweep{Method: verdict.SweepLadder, Vary: verdict.VaryRate, Target: 0.9, Baseline: "round-robin",
				Rates: []float64{4}, Policies: tc.policies}
			dir := t.TempDir()
			if err := WriteSweepDir(dir, s); err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(filepath.Join(dir, "sweep.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(md), w) {
					t.Errorf("sweep.md lacks %q:\n%s", w, md)
				}
			}
			_, err = os.Stat(filepath.Join(dir, "plots", "sweep-capacity.svg"))
			if tc.plot != (err == nil) || tc.plot != strings.Contains(string(md), "sweep-capacity.svg") {
				t.Errorf("plot drawn and embedded = %v, want %v", err == nil, tc.plot)
			}
		})
	}
}

// TestWriteSweepDirError reports an unwritable directory.
func TestWriteSweepDirError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteSweepDir(filepath.Join(file, "sub"), &verdict.Sweep{})
	if err == nil || !strings.Contains(err.Error(), "sweep") {
		t.Errorf("got %v, want an error naming the sweep report", err)
	}
}

// TestSweepDocsListEveryColumn keeps docs/sweep.md in step with the
// columns of sweep.csv.
func TestSweepDocsListEveryColumn(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "sweep.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range SweepColumns() {
		if !strings.Contains(string(b), "`"+c+"`") {
			t.Errorf("docs/sweep.md does not document sweep.csv column %q", c)
		}
	}
}
