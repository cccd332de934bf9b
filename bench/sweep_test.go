package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/verdict"
)

// TestSweepSim: a virtual-time ladder sweep of two routers without the
// command line runs every rate of every router, writes each Run's
// results file and the report, and is the same on a second run.
func TestSweepSim(t *testing.T) {
	sweep := func(out string) *verdict.Sweep {
		base := simSpec(out, "")
		base.Workload.WorkloadArgs, base.Workload.MaxRequests = traces.Params{{Name: "requests", Value: traces.ParamInt(60)}}, 60
		native, ident, err := NativeRate(base.Workload)
		if err != nil {
			t.Fatal(err)
		}
		spec := SweepSpec{Base: base, Routers: []string{"round-robin", "prefix-cache"}, Baseline: "round-robin",
			Attainment: 0.9, Ladder: []float64{2, 200}, Vary: verdict.VaryRate, Native: native, Ident: ident,
			Fleet: "2 simulated engines", MaxErrorRate: 0.05, Out: out, Seeds: 2}
		res, err := Sweep(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	out := t.TempDir()
	res := sweep(out)
	if len(res.Policies) != 2 || res.Verdict == nil {
		t.Fatalf("%d policies, verdict %v; want 2 and a verdict over 2 seeds", len(res.Policies), res.Verdict)
	}
	for _, p := range res.Policies {
		if len(p.Steps) != 2 || p.Steps[0].Rate != 2 || p.Steps[1].Rate != 200 {
			t.Errorf("%s: %d steps, want the ladder 2, 200", p.Policy, len(p.Steps))
		}
		for _, st := range p.Steps {
			if _, err := os.Stat(filepath.Join(out, st.Results)); err != nil {
				t.Errorf("%s at %v req/s: %v", p.Policy, st.Rate, err)
			}
		}
	}
	for _, f := range []string{"sweep.md", "sweep.csv", "seed-1/runs"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("report: %v", err)
		}
	}
	again := sweep(t.TempDir())
	for i, p := range res.Policies {
		for j, st := range p.Steps {
			if a, b := st.Summary.SLA.Attainment, again.Policies[i].Steps[j].Summary.SLA.Attainment; a != b {
				t.Errorf("%s at %v req/s: attainment %v, then %v", p.Policy, st.Rate, a, b)
			}
		}
	}
}
