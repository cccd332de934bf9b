package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// TestMockLatenessLifetime: lateness scraped from a separately started
// mock covers its lifetime, and the report says so in the summary, the
// CSV, the timing table and the warning; the in-process fleet's own
// figures (mode "mock") cover its run even when the run also scraped it.
func TestMockLatenessLifetime(t *testing.T) {
	late := func(p99 float64, scraped bool) map[string]float64 {
		ex := map[string]float64{results.ExtraMockLateP50: 100, results.ExtraMockLateP99: p99, results.ExtraMockLateMax: 22000, results.ExtraMockSteps: 500}
		if scraped {
			ex[results.ExtraMockLateScraped] = 1
		}
		return ex
	}
	const (
		runLate  = "the mock servers ran their steps late (lateness p99 15.00 ms, max 22.0 ms; median TBT 50.02 ms): the machine, not the policy"
		lifeLate = "the mock servers ran steps late over their lifetime (lifetime lateness p99 15.00 ms, max 22.0 ms; " +
			"median TBT 50.02 ms): the lateness was scraped from a separately started mock and covers every step " +
			"since it started, not only this run's"
	)
	tests := []struct {
		name     string
		mode     results.Mode
		extra    map[string]float64
		lifetime bool
		csv      string // mock_lateness_lifetime
		cell     string // the timing table's lateness cell
		warn     string // prefix of the mock lateness warning; "" for none
	}{
		{"in-process fleet", "mock", late(15000, false), false, "0", "| 0.1 / 15.0 / 22.0 | 500 |", runLate},
		{"in-process fleet, scraped too", "mock", late(15000, true), false, "0", "| 0.1 / 15.0 / 22.0 | 500 |", runLate},
		{"scraped target", "target", late(15000, true), true, "1", "| 0.1 / 15.0 / 22.0 (lifetime) | 500 |", lifeLate},
		{"scraped target on time", "target", late(1000, true), true, "1", "| 0.1 / 1.00 / 22.0 (lifetime) | 500 |", ""},
		{"not measured", "target", nil, false, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := finishMode(tc.mode, &results.Stop{Reason: "done", Elapsed: 10 * time.Second, Extra: tc.extra})
			if s.MockStepLate.Lifetime != tc.lifetime {
				t.Errorf("lifetime %v, want %v", s.MockStepLate.Lifetime, tc.lifetime)
			}
			if got := lifetimeCell(s); got != tc.csv {
				t.Errorf("mock_lateness_lifetime %q, want %q", got, tc.csv)
			}
			if got := mockWarning(s); !strings.HasPrefix(got, tc.warn) || (tc.warn == "") != (got == "") {
				t.Errorf("mock warning %q, want prefix %q", got, tc.warn)
			}
			var b bytes.Buffer
			writeTiming(&b, []*metrics.Summary{s})
			if tc.cell != "" && !strings.Contains(b.String(), tc.cell) {
				t.Errorf("timing table lacks %q:\n%s", tc.cell, b.String())
			}
			if note := "Lateness marked (lifetime) was scraped"; strings.Contains(b.String(), note) != tc.lifetime {
				t.Errorf("timing table note %q present %v, want %v:\n%s", note, !tc.lifetime, tc.lifetime, b.String())
			}
		})
	}
}

// finishMode folds handRun's Results as a Run in mode and finishes it
// with stop.
func finishMode(mode results.Mode, stop *results.Stop) *metrics.Summary {
	h, rs := handRun()
	h.Mode = mode
	a := metrics.NewAccumulator(h, metrics.DefaultOptions())
	for _, r := range rs {
		a.Add(r)
	}
	return a.Finish(stop)
}

// mockWarning returns s's warning about the mock's step lateness ("" for
// none).
func mockWarning(s *metrics.Summary) string {
	for _, w := range s.Warnings {
		if strings.HasPrefix(w, "the mock servers ran") {
			return w
		}
	}
	return ""
}
