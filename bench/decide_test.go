package bench

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/verdict"
)

// decideSpec is a small two-stage decision between round-robin and
// prefix-cache on 2 replicas: 60 requests of the mixed workload per run
// under a TTFT bound of 100 ms (under the default 2 s two replicas absorb
// 60 requests at any rate), 2 seeds, stage 2 sized for about a second per
// run.
func decideSpec(dir string) DecideSpec {
	cfg, _ := profile.BuiltinConfig("small-kv")
	base := Spec{Workload: DefaultWorkload(), Policy: DefaultPolicy(), Client: DefaultClient(), Report: metrics.DefaultOptions()}
	base.Workload.WorkloadArgs, base.Workload.MaxRequests = traces.Params{{Name: "requests", Value: traces.ParamInt(60)}}, 60
	base.Quiet = true
	base.Report.SLO.TTFT = 100 * time.Millisecond
	mock := DefaultMockFleet()
	mock.Replicas, mock.Server.Engine = 2, cfg
	sim := func(_ context.Context, s *Spec) (func(), error) {
		c := cfg
		c.Seed += int64(s.Workload.Seed - 1)
		s.Sim, s.Fleet = 2, &c
		return func() {}, nil
	}
	return DecideSpec{Base: base, Routers: []string{"round-robin", "prefix-cache"}, Seeds: 2, Native: 5, Ident: "mixed",
		Sim: sim, SimFleet: "2 replicas of small-kv", Mock: mock, ConfirmWall: time.Second, Out: dir}
}

// TestDecide: the two stages run, the verdict ranks both policies by
// capacity over both seeds, stage 2 confirms both (round-robin as the
// baseline) on both seeds in real time, the agreement compares them, and
// report.md opens with the verdict and the decision.
func TestDecide(t *testing.T) {
	dir := t.TempDir()
	res, err := Decide(context.Background(), decideSpec(dir))
	if err != nil {
		t.Fatal(err)
	}
	d := res.Decision
	if d.CapacityVerdict == nil || len(d.CapacityVerdict.Rows) != 2 || d.CapacityVerdict.Seeds != 2 {
		t.Fatalf("capacity verdict %+v, want 2 policies over 2 seeds", d.CapacityVerdict)
	}
	if d.Confirm == nil || len(d.Confirm.Rows) != 2 || d.Confirm.Seeds != 2 {
		t.Fatalf("confirmation %+v, want 2 policies over 2 seeds", d.Confirm)
	}
	if d.Agreement.Pairs != 1 || d.Agreement.Stage1Pick != d.CapacityVerdict.Pick || d.Agreement.Stage2Pick != d.Confirm.Pick {
		t.Errorf("agreement %+v, want one pair and both stages' picks", d.Agreement)
	}
	if !(d.ConfirmRate > 0) || d.TimeScale < 1 || len(res.Runs) != 2 {
		t.Errorf("stage 2 at %g req/s, time scale %g, %d runs; want a rate, a scale ≥ 1 and 2 runs", d.ConfirmRate, d.TimeScale, len(res.Runs))
	}
	if curves := d.Curves(); len(curves) != 2 || len(curves[0].Points) == 0 {
		t.Errorf("curves %+v, want one per policy with its runs", curves)
	}
	md, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Verdict", "## Decision", "Question: which router", "**Agreement**"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, f := range []string{"capacity/sweep.md", "confirm/seed-1/results-prefix-cache.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestDecideOneRouter: with one router there is nothing to decide: stage
// 1 measures its capacity on every seed, stage 2 does not run, and the
// report is stage 1's sweep.
func TestDecideOneRouter(t *testing.T) {
	dir := t.TempDir()
	spec := decideSpec(dir)
	spec.Routers = []string{"prefix-cache"}
	res, err := Decide(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Alone
	if a == nil || a.Policy != "prefix-cache" || len(a.Sustained) != 2 || !(a.Mean > 0) || !(a.Lo <= a.Mean && a.Mean <= a.Hi) {
		t.Fatalf("alone %+v, want prefix-cache's capacity over 2 seeds with its interval", a)
	}
	if res.Runs != nil || res.Decision.Confirm != nil || res.Report != filepath.Join(dir, "capacity", "sweep.md") {
		t.Errorf("stage 2 ran (%d runs) or the report is %q, want none and capacity/sweep.md", len(res.Runs), res.Report)
	}
	if _, err := os.Stat(filepath.Join(dir, "confirm")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("confirm/: %v, want no stage 2", err)
	}
	if !strings.HasPrefix(a.Text(), "nothing to decide: prefix-cache is the only router; it sustains ") {
		t.Errorf("text %q", a.Text())
	}
}

// TestDecideErrors: a DecideSpec the caller can fix is a UsageError naming
// its field, with nothing run.
func TestDecideErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*DecideSpec)
		want string
	}{
		{"no router", func(s *DecideSpec) { s.Routers = nil }, "DecideSpec.Routers"},
		{"no simulation", func(s *DecideSpec) { s.Sim = nil }, "DecideSpec.Sim"},
		{"no requests", func(s *DecideSpec) { s.Base.Workload.MaxRequests = 0 }, "Spec.Workload.MaxRequests"},
		{"negative seeds", func(s *DecideSpec) { s.Seeds = -1 }, "DecideSpec.Seeds"},
		{"baseline not compared", func(s *DecideSpec) { s.Baseline = "random" }, "DecideSpec.Baseline"},
		{"bad mock", func(s *DecideSpec) { s.Mock.Replicas = 0 }, "MockFleet.Replicas"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := decideSpec(dir)
			tc.edit(&s)
			_, err := Decide(context.Background(), s)
			var ue UsageError
			if !errors.As(err, &ue) || ue.Field != tc.want {
				t.Errorf("err %v, want a UsageError naming %s", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "capacity")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("capacity/: %v, want nothing run", err)
			}
		})
	}
}

// TestDecideUnbounded: when the fleet meets the SLA at every load the
// search offers (too few requests per run to load it), stage 1 says so,
// naming the policies, and no real-time run starts.
func TestDecideUnbounded(t *testing.T) {
	dir := t.TempDir()
	s := decideSpec(dir)
	s.Base.Report.SLO.TTFT = 2 * time.Second
	res, err := Decide(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "round-robin (seed 0, every load up to") ||
		!strings.Contains(err.Error(), "give more Spec.Workload.MaxRequests") {
		t.Fatalf("err %v, want stage 1 naming the unbounded policies", err)
	}
	if res.Decision.Confirm != nil || res.Report != "" {
		t.Errorf("stage 2 ran or a report was written after stage 1 failed")
	}
	if _, err := os.Stat(filepath.Join(dir, "capacity", "sweep.md")); err != nil {
		t.Errorf("stage 1's sweep report: %v, want it kept", err)
	}
}

// TestConfirmed: stage 2 confirms the leaders and the baseline, and the
// next best when the baseline leads.
func TestConfirmed(t *testing.T) {
	rows := func(names ...string) *verdict.Verdict {
		v := &verdict.Verdict{}
		for i, n := range names {
			v.Rows = append(v.Rows, verdict.VerdictRow{Policy: n, Mean: float64(100 - 10*i)})
		}
		return v
	}
	tests := []struct {
		name    string
		leaders int
		ranking []string
		want    []string
	}{
		{"baseline last", 2, []string{"a", "b", "c", "round-robin"}, []string{"a", "b", "round-robin"}},
		{"baseline leads", 2, []string{"round-robin", "a", "b", "c"}, []string{"round-robin", "a", "b"}},
		{"baseline second", 1, []string{"a", "round-robin", "b"}, []string{"a", "round-robin"}},
		{"one leader, baseline leads", 1, []string{"round-robin", "a", "b"}, []string{"round-robin", "a"}},
		{"fewer policies than wanted", 2, []string{"a", "round-robin"}, []string{"a", "round-robin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dc := &decider{s: DecideSpec{Routers: tc.ranking, Baseline: "round-robin", Leaders: tc.leaders, Base: Spec{Policy: DefaultPolicy()}}}
			got, rate := dc.confirmed(rows(tc.ranking...))
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("confirmed %v, want %v", got, tc.want)
			}
			if want := math.Sqrt(100 * 90); math.Abs(rate-want) > 1e-9 {
				t.Errorf("rate %g, want %g (between the two best)", rate, want)
			}
		})
	}
}
