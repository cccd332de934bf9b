package calibrate

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSaveAt: the save at m tokens is F + m·P, and its error carries the
// two terms' covariance: perfectly anti-correlated logs whose swings
// cancel at m leave a smaller error than either term's alone.
func TestSaveAt(t *testing.T) {
	f, p, m := 0.3, 100e-6, 1000.0 // 300 ms + 100 µs a token: 400 ms at 1000 tokens
	free := []int{termPrefill, termSaveFixed, termSavePerToken}
	x := []float64{math.Log(50e-6), math.Log(f), math.Log(p)}
	for _, tc := range []struct {
		name  string
		rho   float64
		small bool // the error is below the fixed term's own
	}{
		{"independent", 0, false},
		{"trading off", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := 0.1 // 10 % on each term's log
			cov := mat.NewDense(3, 3, []float64{
				0.01, 0, 0,
				0, s * s, tc.rho * s * s,
				0, tc.rho * s * s, s * s,
			})
			val, se, ok := saveAt(free, x, cov, m)
			if !ok || math.Abs(val-0.4) > 1e-12 {
				t.Fatalf("saveAt = %v, %v, %v; want 0.4 s", val, se, ok)
			}
			want := math.Sqrt(f*f*s*s + m*m*p*p*s*s + 2*m*f*p*tc.rho*s*s)
			if math.Abs(se-want) > 1e-12 || (se < f*s) != tc.small {
				t.Fatalf("se = %v, want %v (below the fixed term's %v: %v)", se, want, f*s, tc.small)
			}
		})
	}
	if _, _, ok := saveAt([]int{termSaveFixed}, x[:1], mat.NewDense(1, 1, []float64{1}), m); ok {
		t.Fatal("saveAt without save_per_token: want not ok")
	}
	if _, _, ok := saveAt(free, x, nil, m); ok {
		t.Fatal("saveAt without a covariance: want not ok")
	}
}

// TestSplitNote: the note appears only when the halves agree on the save
// at the mean length and disagree on its split.
func TestSplitNote(t *testing.T) {
	row := func(name string, agree bool) HalfTerm {
		return HalfTerm{Name: name, Unit: "ms", First: 1, Second: 2, Agree: agree}
	}
	for _, tc := range []struct {
		name  string
		terms []HalfTerm
		want  bool
	}{
		{"split loose", []HalfTerm{row("save_fixed", false), row("save_per_token", false), row("save_at_761_tokens", true)}, true},
		{"all agree", []HalfTerm{row("save_fixed", true), row("save_per_token", true), row("save_at_761_tokens", true)}, false},
		{"sum apart too", []HalfTerm{row("save_fixed", false), row("save_at_761_tokens", false)}, false},
		{"no sum", []HalfTerm{row("save_fixed", false)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := splitNote(tc.terms)
			if (got != "") != tc.want || tc.want && !strings.Contains(got, "save_at_761_tokens") {
				t.Fatalf("splitNote = %q, want a note: %v", got, tc.want)
			}
		})
	}
}
