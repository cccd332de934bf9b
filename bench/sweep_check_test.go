package bench

import (
	"context"
	"errors"
	"testing"

	"github.com/tracebench/tracebench/verdict"
)

// TestSweepValidate: a bad sweep setting is a UsageError naming its
// SweepSpec field, and nothing runs; the search's settings are not
// checked with a Ladder.
func TestSweepValidate(t *testing.T) {
	good := SweepSpec{Attainment: 0.9, Tolerance: 0.04, MaxRuns: 12, Growth: 4, MaxErrorRate: 0.05, Vary: verdict.VaryRate}
	if err := good.Validate(); err != nil {
		t.Fatalf("good settings: %v", err)
	}
	ladder := good
	ladder.Ladder, ladder.Growth, ladder.MaxRuns = []float64{1, 2}, 0, 0
	if err := ladder.Validate(); err != nil {
		t.Errorf("a ladder without search settings: %v", err)
	}
	for _, tc := range []struct {
		edit  func(*SweepSpec)
		field string
	}{
		{func(s *SweepSpec) { s.Attainment = 0 }, "SweepSpec.Attainment"},
		{func(s *SweepSpec) { s.Tolerance = 1 }, "SweepSpec.Tolerance"},
		{func(s *SweepSpec) { s.MaxRuns = 0 }, "SweepSpec.MaxRuns"},
		{func(s *SweepSpec) { s.Growth = 1 }, "SweepSpec.Growth"},
		{func(s *SweepSpec) { s.MaxErrorRate = 2 }, "SweepSpec.MaxErrorRate"},
		{func(s *SweepSpec) { s.Cooldown = -1 }, "SweepSpec.Cooldown"},
		{func(s *SweepSpec) { s.Jobs = -1 }, "SweepSpec.Jobs"},
		{func(s *SweepSpec) { s.Vary = "speed" }, "SweepSpec.Vary"},
		{func(s *SweepSpec) { s.Ladder = []float64{1, -2} }, "SweepSpec.Ladder"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			s := good
			s.Out = t.TempDir()
			tc.edit(&s)
			res, err := Sweep(context.Background(), s)
			var ue UsageError
			if !errors.As(err, &ue) || ue.Field != tc.field || res == nil || len(res.Policies) != 0 {
				t.Errorf("err %v (field %q); want a UsageError on %s and no runs", err, ue.Field, tc.field)
			}
		})
	}
}
