package plan

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/traces"
)

// planBase is a small plan's base Spec: 300 mixed-workload requests on
// small-kv engines, TTFT ≤ 2 s and TPOT ≤ 100 ms.
func planBase(t *testing.T) bench.Spec {
	t.Helper()
	p, err := profile.Builtin("small-kv")
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config()
	wf := bench.DefaultWorkload()
	wf.WorkloadArgs, wf.MaxRequests = traces.Params{{Name: "requests", Value: traces.ParamInt(300)}}, 300
	ro := metrics.DefaultOptions()
	ro.SLO.TTFT, ro.SLO.TPOT = 2*time.Second, 100*time.Millisecond
	return bench.Spec{Workload: wf, Policy: bench.DefaultPolicy(), Report: ro, Fleet: &cfg, Preset: "small-kv"}
}

// TestPlanSim plans two routers and checks that each answer is the
// fewest replicas: it passed, and one replica fewer was tried and failed.
func TestPlanSim(t *testing.T) {
	res, err := Plan(context.Background(), Spec{Base: planBase(t), Routers: []string{"round-robin", "prefix-cache"},
		Rate: 40, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if !r.Met() || r.Replicas < 2 {
			t.Fatalf("%s: %d replicas, want a fleet of at least 2 at 40 req/s", r.Policy, r.Replicas)
		}
		var below bool
		for _, p := range r.Tried {
			if p.Replicas == r.Replicas && !p.Pass || p.Replicas < r.Replicas && p.Pass {
				t.Errorf("%s: tried %+v against the answer %d", r.Policy, p, r.Replicas)
			}
			below = below || p.Replicas == r.Replicas-1
		}
		if !below || r.Figures.Attainment < 0.9 || r.Figures.TTFTp50 <= 0 {
			t.Errorf("%s: %d replicas, tried %+v, figures %+v", r.Policy, r.Replicas, r.Tried, r.Figures)
		}
	}
}

// TestPlanSeeds: meeting the target on two seeds is stricter than on
// one, so it never takes fewer replicas.
func TestPlanSeeds(t *testing.T) {
	answer := func(seeds int) int {
		res, err := Plan(context.Background(), Spec{Base: planBase(t), Routers: []string{"least-request"}, Rate: 40, Seeds: seeds})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0].Replicas
	}
	if one, two := answer(1), answer(2); one == 0 || two < one {
		t.Errorf("%d replicas on one seed, %d on two: want two ≥ one > 0", one, two)
	}
}

// TestPlanUnmet: a target the largest fleet cannot meet is reported with
// the largest load that fleet met, below the target.
func TestPlanUnmet(t *testing.T) {
	res, err := Plan(context.Background(), Spec{Base: planBase(t), Routers: []string{"round-robin"}, Rate: 400, MaxReplicas: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Rows[0]
	if r.Met() || !(r.LargestMet > 0 && r.LargestMet < 400) {
		t.Fatalf("row %+v: want not met, with a largest load in (0, 400)", r)
	}
	line := reports.PlanUnmet(res)
	if len(line) != 1 || !strings.HasPrefix(line[0], "round-robin: not met with 2 replicas; the largest load met was ") {
		t.Errorf("unmet lines %q", line)
	}
}

// TestPlanPD searches every split of a 3-replica P/D fleet.
func TestPlanPD(t *testing.T) {
	res, err := Plan(context.Background(), Spec{Base: planBase(t), Routers: []string{"round-robin"}, Rate: 20, PDSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	pd := res.PD[0]
	if len(pd.Splits) != 2 || pd.Splits[0].Prefill != 1 || pd.Splits[1].Decode != 1 || pd.Best < 0 {
		t.Fatalf("splits %+v best %d", pd.Splits, pd.Best)
	}
	for _, s := range pd.Splits {
		if s.Sustained > pd.Splits[pd.Best].Sustained {
			t.Errorf("split %d:%d sustains %g, more than the best", s.Prefill, s.Decode, s.Sustained)
		}
	}
}

func TestPlanSpecValidate(t *testing.T) {
	base := Spec{Routers: []string{"round-robin"}, Rate: 1}
	for _, tc := range []struct {
		name  string
		edit  func(*Spec)
		field string
	}{
		{"both targets", func(s *Spec) { s.Users = 3 }, "PlanSpec.Rate"},
		{"no target", func(s *Spec) { s.Rate = 0 }, "PlanSpec.Rate"},
		{"negative rate", func(s *Spec) { s.Rate = -1 }, "PlanSpec.Rate"},
		{"no router", func(s *Spec) { s.Routers = nil }, "PlanSpec.Routers"},
		{"attainment", func(s *Spec) { s.Attainment = 1.5 }, "PlanSpec.Attainment"},
		{"max replicas", func(s *Spec) { s.MaxReplicas = -2 }, "PlanSpec.MaxReplicas"},
		{"seeds", func(s *Spec) { s.Seeds = -1 }, "PlanSpec.Seeds"},
		{"pd size", func(s *Spec) { s.PDSize = 1 }, "PlanSpec.PDSize"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.edit(&s)
			err := s.Validate()
			var ue bench.UsageError
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), tc.field) {
				t.Errorf("err %v, want a UsageError naming %s", err, tc.field)
			}
		})
	}
	if err := base.Validate(); err != nil {
		t.Errorf("valid spec: %v", err)
	}
}
