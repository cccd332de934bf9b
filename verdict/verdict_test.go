package verdict

import (
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// runsOf builds summaries with the given attainments (fractions).
func runsOf(att ...float64) []*metrics.Summary {
	var out []*metrics.Summary
	for _, a := range att {
		out = append(out, &metrics.Summary{SLA: metrics.SLA{Attainment: a, Goodput: a}})
	}
	return out
}

func TestDecideVerdict(t *testing.T) {
	for _, tc := range []struct {
		name     string
		runs     map[string][]*metrics.Summary
		pick     string
		tie      bool
		headline string
	}{
		{"clear winner", map[string][]*metrics.Summary{"a": runsOf(0.9, 0.92, 0.91, 0.93), "b": runsOf(0.8, 0.83, 0.81, 0.82)},
			"a", false, "pick a: SLA attainment 91.5 %, +10.0 pt over b (95 % CI"},
		{"inside the noise", map[string][]*metrics.Summary{"a": runsOf(0.9, 0.8, 0.95, 0.85), "b": runsOf(0.85, 0.9, 0.8, 0.88)},
			"a", true, "no clear winner: a and b tie"},
		{"one seed", map[string][]*metrics.Summary{"a": runsOf(0.9), "b": runsOf(0.8)},
			"a", false, "on one seed (no confidence interval"},
		{"equal on one seed", map[string][]*metrics.Summary{"a": runsOf(0.9), "b": runsOf(0.9)},
			"a", true, "tie on SLA attainment (90.0 % each) over one seed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := DecideVerdict([]string{"a", "b"}, tc.runs)
			if v.Pick != tc.pick || v.Tie != tc.tie || !strings.Contains(v.Headline(), tc.headline) {
				t.Fatalf("pick %s tie %v headline %q: want %s, %v, %q", v.Pick, v.Tie, v.Headline(), tc.pick, tc.tie, tc.headline)
			}
		})
	}
	if DecideVerdict([]string{"a"}, map[string][]*metrics.Summary{"a": runsOf(1)}) != nil {
		t.Fatal("one policy: want no verdict")
	}
}

func TestMeanCI(t *testing.T) {
	// Four values 1, 2, 3, 4: mean 2.5, sd 1.291, t(3, 0.975) = 3.182.
	lo, hi := meanCI([]float64{1, 2, 3, 4})
	if math.Abs(lo-0.4457) > 1e-3 || math.Abs(hi-4.5543) > 1e-3 {
		t.Fatalf("CI %v..%v, want 0.446..4.554", lo, hi)
	}
}

// TestVerdictNamesEveryTiedPolicy: a tie on one seed names every policy
// at the top, not only the first two.
func TestVerdictNamesEveryTiedPolicy(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs map[string][]*metrics.Summary
		want string
	}{
		{"all three", map[string][]*metrics.Summary{"a": runsOf(1), "b": runsOf(1), "c": runsOf(1)},
			"all 3 policies tie on SLA attainment (100.0 % each)"},
		{"two of three", map[string][]*metrics.Summary{"a": runsOf(0.9), "b": runsOf(0.9), "c": runsOf(0.5)},
			"a and b tie on SLA attainment (90.0 % each)"},
		{"three of four", map[string][]*metrics.Summary{"a": runsOf(0.9), "b": runsOf(0.9), "c": runsOf(0.9), "d": runsOf(0.1)},
			"a, b and c tie on SLA attainment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names := []string{"a", "b", "c", "d"}[:len(tc.runs)]
			if h := DecideVerdict(names, tc.runs).Headline(); !strings.Contains(h, tc.want) {
				t.Fatalf("headline %q, want %q", h, tc.want)
			}
		})
	}
}
