package bench

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/verdict"
)

// TestDecideUsers: with closed-loop sessions, stage 1 searches the most
// concurrent users each policy serves (whole users), the verdict counts
// users, stage 2 runs that many users, and the report says so.
func TestDecideUsers(t *testing.T) {
	dir := t.TempDir()
	spec := decideSpec(dir)
	spec.Vary = verdict.VaryUsers
	spec.Base.Workload.Sessions.Pacing = "closed"
	spec.Base.Workload.WorkloadArgs = append(spec.Base.Workload.WorkloadArgs, traces.Param{Name: "think", Value: traces.ParamDuration(200 * time.Millisecond)})
	res, err := Decide(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Decision
	if d.Capacity == nil || d.Capacity.Vary != verdict.VaryUsers {
		t.Fatalf("stage 1 sweep %+v, want one over users", d.Capacity)
	}
	if v := d.CapacityVerdict; v == nil || v.Unit != "users" || len(v.Rows) != 2 {
		t.Fatalf("capacity verdict %+v, want 2 policies in users", v)
	}
	for _, p := range d.Capacity.Policies {
		for _, st := range p.Steps {
			if st.Rate != math.Round(st.Rate) || st.Rate < 1 {
				t.Errorf("%s: a stage-1 run with %v users", p.Policy, st.Rate)
			}
		}
	}
	if d.ConfirmRate != math.Round(d.ConfirmRate) || d.ConfirmRate < 1 || d.Confirm == nil {
		t.Errorf("stage 2 with %v users (confirm %v), want a whole number and a confirmation", d.ConfirmRate, d.Confirm)
	}
	md, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"concurrent closed-loop users", "sustained users", "closed-loop users on the real-time mock"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
