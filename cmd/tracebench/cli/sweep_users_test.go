package cli

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/verdict"
)

// TestSweepUsers searches the most closed-loop users each router serves
// under the SLO: every run has a whole number of users, each search ends
// one user (or the tolerance) apart, and the same seed gives the same answer.
func TestSweepUsers(t *testing.T) {
	skipSlowUnderRace(t)
	args := []string{"--sim", "4", "--vary", "users", "--workload", "multi-turn", "-p", "requests=300",
		"-p", "think=2s", "--policies", "round-robin,prefix-cache", "--slo-ttft", "300ms", "--slo-tpot", "50ms"}
	res, _, err := sweepFor(t, context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	if res.Vary != verdict.VaryUsers {
		t.Fatalf("vary %q, want users", res.Vary)
	}
	for _, p := range res.Policies {
		for _, st := range p.Steps {
			if st.Rate != math.Round(st.Rate) || st.Rate < 1 {
				t.Errorf("%s: a run with %v users", p.Policy, st.Rate)
			}
		}
		if !p.Converged || p.Broken-p.Sustained != 1 && p.Broken/p.Sustained > 1.04 {
			t.Errorf("%s: sustained %v, broke at %v, converged %v; want a bracket one user or 4 %% wide", p.Policy,
				p.Sustained, p.Broken, p.Converged)
		}
	}
	again, _, err := sweepFor(t, context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range again.Policies {
		if p.Sustained != res.Policies[i].Sustained {
			t.Errorf("%s: %v users, then %v on the same seed", p.Policy, res.Policies[i].Sustained, p.Sustained)
		}
	}
	var md strings.Builder
	reports.WriteSweepMarkdown(&md, res, false)
	if !strings.Contains(md.String(), "| policy | sustained users |") {
		t.Errorf("the report does not count users:\n%s", md.String())
	}
	if _, _, err := sweepFor(t, context.Background(), append(args, "--sessions", "open")...); err == nil ||
		!strings.Contains(err.Error(), "closed-loop") {
		t.Errorf("--vary users with --sessions open: %v, want a refusal", err)
	}
}
