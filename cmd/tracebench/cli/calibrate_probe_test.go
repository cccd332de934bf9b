package cli

import (
	"strings"
	"testing"
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
			got, why := probeConcurrency(tc.max, tc.slots)
			if got != tc.want || (why != "") != tc.capping {
				t.Fatalf("probeConcurrency(%d, %v) = %d, %q: want %d, capping %v", tc.max, tc.slots, got, why, tc.want, tc.capping)
			}
			if tc.capping && !strings.Contains(why, "--probe-max-concurrency") {
				t.Fatalf("message %q does not name the flag", why)
			}
		})
	}
}

func TestProbePhasesSmallServer(t *testing.T) {
	var names []string
	for _, p := range probePhases(4, 512) {
		names = append(names, p.name)
	}
	if got, want := strings.Join(names, " "), "c1 c2 d2 c4 d4 shared-c1 shared-c4"; got != want {
		t.Fatalf("phases %q, want %q", got, want)
	}
	names = names[:0]
	for _, p := range probePhases(16, 512) {
		names = append(names, p.name)
	}
	if got, want := strings.Join(names, " "), "c1 c2 c4 c8 c16 shared-c4"; got != want {
		t.Fatalf("phases %q, want %q", got, want)
	}
}
