package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// TestTimingShowsMockLateness: the timing table has the mock step
// lateness columns when some run measured it (n/a for a run that did
// not) and leaves them out when none did; schedule lag has its p50.
func TestTimingShowsMockLateness(t *testing.T) {
	nan := math.NaN()
	mock := func() *metrics.Summary {
		s := summarizeHand(metrics.DefaultOptions())
		s.MockStepLate = metrics.Lateness{P50: 0.04, P99: 2.5, Max: 31, Steps: 12345}
		return s
	}
	live := func() *metrics.Summary {
		s := summarizeHand(metrics.DefaultOptions())
		s.MockStepLate = metrics.Lateness{P50: nan, P99: nan, Max: nan, Steps: nan}
		return s
	}
	for _, tc := range []struct {
		name    string
		runs    []*metrics.Summary
		want    []string
		notWant []string
	}{
		{"in-process mock", []*metrics.Summary{mock()}, []string{"| mock step late p50 / p99 / max ms | mock steps |",
			"| 0.04 / 2.50 / 31.0 | 12345 |", "mock step lateness"}, nil},
		{"mock and live", []*metrics.Summary{mock(), live()}, []string{"| 0.04 / 2.50 / 31.0 | 12345 |", "| n/a | n/a |"}, nil},
		{"live only", []*metrics.Summary{live()}, []string{"sched lag p50 ms"}, []string{"mock step", "mock steps"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkTiming(t, tc.runs, tc.want, tc.notWant) })
	}
}

// TestTimingShowsHostCPU: the timing table has the host CPU column when
// some run measured it (n/a for a run that did not, or for a missing
// steal field) and leaves it out when none did.
func TestTimingShowsHostCPU(t *testing.T) {
	nan := math.NaN()
	run := func(steal, busy float64) *metrics.Summary {
		s := summarizeHand(metrics.DefaultOptions())
		s.Host = metrics.HostCPU{StealPct: steal, BusyPct: busy}
		return s
	}
	for _, tc := range []struct {
		name    string
		runs    []*metrics.Summary
		want    []string
		notWant []string
	}{
		{"measured", []*metrics.Summary{run(12.46, 40.04)}, []string{"| host CPU steal / busy % |", "| 12.5 / 40.0 |",
			"CPU steal", "steal above 2 %"}, nil},
		{"measured and sim", []*metrics.Summary{run(0, 35), run(nan, nan)}, []string{"| 0.0 / 35.0 |", "| n/a |"}, nil},
		{"no steal field", []*metrics.Summary{run(nan, 35)}, []string{"| n/a / 35.0 |"}, nil},
		{"with the load", []*metrics.Summary{func() *metrics.Summary {
			s := run(0, 98)
			s.Host.Load1, s.Host.CPUs = 2.4, 2
			return s
		}()}, []string{"| 0.0 / 98.0, load 2.4 on 2 CPUs |", "load average above 2 threads a CPU"}, nil},
		{"none measured", []*metrics.Summary{run(nan, nan)}, []string{"sched lag p50 ms"}, []string{"host CPU", "steal"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkTiming(t, tc.runs, tc.want, tc.notWant) })
	}
}

// checkTiming renders the timing detail table of runs and requires every
// string of want in it and none of notWant.
func checkTiming(t *testing.T, runs []*metrics.Summary, want, notWant []string) {
	t.Helper()
	var b bytes.Buffer
	writeTiming(&b, runs)
	got := b.String()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("timing table lacks %q:\n%s", w, got)
		}
	}
	for _, w := range notWant {
		if strings.Contains(got, w) {
			t.Errorf("timing table has %q:\n%s", w, got)
		}
	}
}
