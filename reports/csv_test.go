package reports

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// TestSummaryCSVMockLateness checks the mock lateness columns of
// summary.csv: milliseconds from the stop line's microseconds, the step
// count written in full, and empty cells when the run had no mock.
func TestSummaryCSVMockLateness(t *testing.T) {
	cols := []string{"mock_step_late_p50_ms", "mock_step_late_p99_ms", "mock_step_late_max_ms", "mock_steps"}
	tests := []struct {
		name  string
		extra map[string]float64
		want  []string
	}{
		{"mock", map[string]float64{results.ExtraMockLateP50: 40, results.ExtraMockLateP99: 300, results.ExtraMockLateMax: 12500,
			results.ExtraMockSteps: 1234567}, []string{"0.04", "0.3", "12.5", "1234567"}},
		{"no mock", nil, []string{"", "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := csvRow(t, finishHand(metrics.DefaultOptions(), &results.Stop{Reason: "done", Extra: tt.extra}))
			var got []string
			for _, c := range cols {
				got = append(got, at[c])
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%v (-want +got):\n%s", cols, d)
			}
		})
	}
}

// TestSummaryCSVHostCPU checks the host CPU columns of summary.csv: the
// two appended after mock_steps, the stop line's percentages as written, and empty cells for a
// run that did not measure them (--sim, off Linux, older files).
func TestSummaryCSVHostCPU(t *testing.T) {
	cols := []string{"host_steal_pct", "host_busy_pct"}
	got := SummaryColumns()
	if i := slices.Index(got, "mock_steps"); i < 0 || i+3 > len(got) || !slices.Equal(got[i+1:i+3], cols) {
		t.Fatalf("summary columns %q: want %q right after mock_steps", got, cols)
	}
	tests := []struct {
		name  string
		extra map[string]float64
		want  []string
	}{
		{"stolen", map[string]float64{results.ExtraHostStealPct: 12.5, results.ExtraHostBusyPct: 61.25}, []string{"12.5", "61.25"}},
		{"quiet", map[string]float64{results.ExtraHostStealPct: 0, results.ExtraHostBusyPct: 30}, []string{"0", "30"}},
		{"no steal field", map[string]float64{results.ExtraHostBusyPct: 30}, []string{"", "30"}},
		{"not measured", nil, []string{"", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := csvRow(t, finishHand(metrics.DefaultOptions(), &results.Stop{Reason: "done", Extra: tt.extra}))
			if d := cmp.Diff(tt.want, []string{at[cols[0]], at[cols[1]]}); d != "" {
				t.Errorf("%v (-want +got):\n%s", cols, d)
			}
		})
	}
}

// csvRow writes s as summary.csv and returns its one row by column name.
func csvRow(t *testing.T, s *metrics.Summary) map[string]string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, []*metrics.Summary{s}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("read summary csv: %d rows, %v", len(rows), err)
	}
	at := map[string]string{}
	for i, c := range rows[0] {
		at[c] = rows[1][i]
	}
	return at
}
