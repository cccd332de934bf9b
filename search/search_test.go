package search

import (
	"errors"
	"math"
	"testing"
)

// logistic is a synthetic monotone attainment curve that crosses 0.9 at
// knee·(something): attainment = 1 / (1 + exp((rate − knee)/width)).
func logistic(knee, width float64) func(float64) (float64, error) {
	return func(r float64) (float64, error) { return 1 / (1 + math.Exp((r-knee)/width)), nil }
}

// crossing is where the logistic curve equals target: knee + width·ln(1/target − 1).
func crossing(knee, width, target float64) float64 { return knee + width*math.Log(1/target-1) }

func TestFindSustainedRate(t *testing.T) {
	tests := []struct {
		name         string
		knee, width  float64
		start        float64
		maxRuns      int
		wantMaxRuns  int
		wantConverge bool
	}{
		// True boundary 10 + 0.5·ln(1/9) = 8.90 req/s; start below it.
		{"from below", 10, 0.5, 1, 12, 10, true},
		// Start 20x too high: five halvings (200 → 6.25), then five
		// geometric bisections of [6.25, 12.5] to a 4 % bracket.
		{"from above", 10, 0.5, 200, 12, 11, true},
		// A steep knee at 3.3 req/s.
		{"steep", 3.3, 0.01, 1, 12, 10, true},
		// Too few runs to converge: reports what it has.
		{"budget", 10, 0.5, 1, 3, 3, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := FindSustainedRate(logistic(tc.knee, tc.width), Options{Start: tc.start, MaxRuns: tc.maxRuns})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Probes) > tc.wantMaxRuns {
				t.Fatalf("%d runs, want at most %d", len(res.Probes), tc.wantMaxRuns)
			}
			if res.Converged != tc.wantConverge {
				t.Fatalf("converged = %v, want %v (%+v)", res.Converged, tc.wantConverge, res)
			}
			if !tc.wantConverge {
				return
			}
			want := crossing(tc.knee, tc.width, 0.9)
			if res.Sustained > want || res.Sustained < want*0.95 {
				t.Fatalf("sustained %.3f, want within 5%% below the true %.3f", res.Sustained, want)
			}
		})
	}
}

func TestSearchAgreesWithFineLadder(t *testing.T) {
	eval := logistic(7.3, 0.4)
	var rates []float64
	for r := 0.1; r <= 12; r += 0.1 {
		rates = append(rates, r)
	}
	lad, err := Ladder(eval, rates, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	res, err := FindSustainedRate(eval, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(res.Sustained-lad.Sustained) / lad.Sustained; d > 0.05 {
		t.Fatalf("search %.3f vs ladder %.3f: %.1f%% apart, want ≤ 5%%", res.Sustained, lad.Sustained, 100*d)
	}
}

func TestSearchDeterministicAndStops(t *testing.T) {
	a, _ := FindSustainedRate(logistic(5, 0.3), Options{})
	b, _ := FindSustainedRate(logistic(5, 0.3), Options{})
	if len(a.Probes) != len(b.Probes) || a.Sustained != b.Sustained {
		t.Fatalf("two searches differ: %+v vs %+v", a, b)
	}
	n := 0
	stop := func(r float64) (float64, error) {
		n++
		if n == 3 {
			return 0, ErrStop
		}
		return 1, nil
	}
	res, err := FindSustainedRate(stop, Options{})
	if err != nil || len(res.Probes) != 2 || res.Sustained != 2 {
		t.Fatalf("stop: %+v, %v; want 2 probes, sustained 2", res, err)
	}
	if _, err := FindSustainedRate(func(float64) (float64, error) { return 0, errors.New("boom") }, Options{}); err == nil {
		t.Fatal("want the evaluation error")
	}
}

// TestFindSustainedUsersWhole checks a search over whole users: every
// value tried is a whole number and the bracket ends one user wide.
func TestFindSustainedUsersWhole(t *testing.T) {
	const limit = 37 // the most users that pass
	var tried []float64
	eval := func(u float64) (float64, error) {
		tried = append(tried, u)
		if u <= limit {
			return 1, nil
		}
		return 0, nil
	}
	res, err := FindSustainedRate(eval, Options{Start: 8, Growth: 2, Tolerance: 0.001, MaxRuns: 20, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range tried {
		if u != math.Round(u) || u < 1 {
			t.Errorf("tried %v users", u)
		}
	}
	if res.Sustained != limit || res.Broken != limit+1 || !res.Converged {
		t.Errorf("sustained %v, broken %v, converged %v; want %d, %d, true (tried %v)", res.Sustained, res.Broken,
			res.Converged, limit, limit+1, tried)
	}
}
