package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/reports"
)

// planArgs are a small plan's flags: 300 requests on small-kv engines.
var planArgs = []string{"plan", "--profile", "small-kv", "--max-requests", "300"}

// TestPlanEndToEnd runs `tracebench plan` and checks the table, the
// cost columns and the report files.
func TestPlanEndToEnd(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, append(planArgs, "--rate", "40", "--policies", "round-robin,prefix-cache",
		"--cost-per-hour", "4", "-o", dir)...)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	for _, w := range []string{"| round-robin | ", "| prefix-cache | ", "$ / M output tokens", "$4 per replica-hour", "report: "} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(errOut, "plan round-robin n1 at 40 req/s, seed 1: ") {
		t.Errorf("stderr lacks the per-run line:\n%s", errOut)
	}
	var p reports.Plan
	b, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Rows {
		if !r.Met() || r.Figures.FleetPerHour != 4*float64(r.Replicas) || !(r.Figures.PerMOutput > 0) {
			t.Errorf("row %+v: want met, $%d/hour and a cost per token", r, 4*r.Replicas)
		}
	}
	if rows := readCSV(t, filepath.Join(dir, "plan.csv")); len(rows) != 3 || rows[0][0] != "kind" {
		t.Errorf("plan.csv: %v", rows)
	}
}

// TestPlanUnmetUsers: a number of users the largest fleet cannot serve
// is said so, with the most users it served.
func TestPlanUnmetUsers(t *testing.T) {
	code, out, errOut := runCLI(t, append(planArgs, "--users", "500", "-p", "think=100ms", "--max-replicas", "1",
		"--policies", "round-robin", "-o", t.TempDir())...)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(out, "round-robin: not met with 1 replicas; the largest load met was ") ||
		!strings.Contains(out, " users.") {
		t.Errorf("stdout does not say the target was not met:\n%s", out)
	}
}

// TestPlanPDAndCheck searches the splits of a 2-replica P/D fleet and
// checks the answer against the real-time mock on a tiny run.
func TestPlanPDAndCheck(t *testing.T) {
	code, out, errOut := runCLI(t, "plan", "--profile", "fast", "--max-requests", "60", "--rate", "20",
		"--policies", "round-robin", "--pd-size", "2", "--check", "--check-requests", "20", "-o", t.TempDir())
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	for _, w := range []string{"## Prefill:decode split of 2 replicas, round-robin", "| 1:1 | ",
		"## Check against the real-time mock", "- TTFT p50: virtual time ", "- throughput: virtual time "} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
}

// TestPlanBadFlags: each bad input is one line naming the flag.
func TestPlanBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "3", "--users", "4"}, "--rate and --users are exclusive"},
		{nil, "plan needs a target: --rate R"},
		{[]string{"--rate", "-2"}, "--rate -2: want a rate > 0"},
		{[]string{"--users", "-2"}, "--users"},
		{[]string{"--rate", "3", "--max-replicas", "0"}, "--max-replicas 0: want ≥ 1"},
		{[]string{"--rate", "3", "--seeds", "0"}, "--seeds 0: want ≥ 1"},
		{[]string{"--rate", "3", "--pd-size", "1"}, "--pd-size 1: want ≥ 2"},
		{[]string{"--rate", "3", "--attainment", "2"}, "--attainment 2: want a fraction"},
		{[]string{"--rate", "3", "--sim", "4"}, "--sim: plan simulates its own fleet"},
		{[]string{"--rate", "3", "--time-scale", "2"}, "--time-scale: plan rescales"},
		{[]string{"--rate", "3", "--policies", "nope"}, "--policies: "},
		{[]string{"--rate", "3", "--profile", "nope"}, "--mock-profile nope"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, append([]string{"plan", "-o", t.TempDir()}, tc.args...)...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("exit %d, stderr %q: want exit %d and one line with %q", code, errOut, ExitUsage, tc.want)
			}
		})
	}
}

// TestPlanMooncakePrefixAware plans the first 1,500 requests of the
// Mooncake conversation trace at 3.4 req/s (docs/plan.md): prefix-cache
// needs fewer long-context replicas than round-robin (5 against 7).
func TestPlanMooncakePrefixAware(t *testing.T) {
	skipSlowUnderRace(t)
	trace := experimentTrace(t, "mooncake/conversation_trace.jsonl")
	dir := t.TempDir()
	code, _, errOut := runCLI(t, "plan", "--trace", trace, "--max-requests", "1500", "--rate", "3.4",
		"--profile", "long-context", "--slo-ttft", "20s", "--slo-tpot", "200ms", "--policies", "round-robin,prefix-cache",
		"-o", dir)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	var p reports.Plan
	b, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil {
		t.Fatal(err)
	}
	rr, pc := p.Rows[0].Replicas, p.Rows[1].Replicas
	if pc == 0 || rr <= pc {
		t.Errorf("round-robin %d replicas, prefix-cache %d: want prefix-cache to need fewer", rr, pc)
	}
}
