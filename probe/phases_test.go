package probe

import (
	"strings"
	"testing"

	"github.com/tracebench/tracebench/bench"
)

func TestProbeConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name    string
		max     int
		slots   []int
		want    int
		capping bool
	}{
		{"not llama.cpp", 32, []int{0}, 32, false},
		{"llama.cpp 4 slots", 32, []int{4}, 4, true},
		{"fewest of two", 32, []int{8, 4}, 4, true},
		{"one slot still probes 2", 32, []int{1}, 2, true},
		{"more slots than asked", 16, []int{64}, 16, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := Concurrency(tc.max, tc.slots)
			if got != tc.want || (why != "") != tc.capping {
				t.Fatalf("ProbeConcurrency(%d, %v) = %d, %q: want %d, capping %v", tc.max, tc.slots, got, why, tc.want, tc.capping)
			}
		})
	}
}

func TestProbePhases(t *testing.T) {
	for _, tc := range []struct {
		maxConc int
		want    string
	}{
		{4, "c1 c2 d2 c4 d4 shared-c1 shared-c4"},
		{16, "c1 c2 c4 c8 c16 shared-c4"},
	} {
		var names []string
		for _, p := range Phases(tc.maxConc, 512) {
			names = append(names, p.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("ProbePhases(%d): %q, want %q", tc.maxConc, got, tc.want)
		}
	}
}

func TestProbeSpecIsAValue(t *testing.T) {
	ps := Spec{Targets: []string{"http://a", "http://b"}, Dir: "d", Client: bench.DefaultClient()}
	ph := Phases(4, 512)[len(Phases(4, 512))-1]
	rs := probeSpec(ps, ph, 7, false)
	if rs.Policy.MaxInflight != 8 || rs.Policy.Router != "least-request" || rs.Workload.Seed != 7 || rs.Client.Scrape {
		t.Fatalf("spec %+v", rs)
	}
	args := strings.Join(rs.Workload.WorkloadArgs.Strings(), " ")
	for _, want := range []string{"rate=1000", "requests=768", "groups=3", "prompts_per_group=256"} {
		if !strings.Contains(args, want) {
			t.Errorf("workload args %q lack %s", args, want)
		}
	}
	if err := rs.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
