package reports

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/replay"
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
		{"mock", map[string]float64{ExtraMockLateP50: 40, ExtraMockLateP99: 300, ExtraMockLateMax: 12500,
			ExtraMockSteps: 1234567}, []string{"0.04", "0.3", "12.5", "1234567"}},
		{"no mock", nil, []string{"", "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, rs := handRun()
			a := NewAccumulator(h, DefaultOptions())
			for _, r := range rs {
				a.Add(r)
			}
			var b bytes.Buffer
			if err := WriteCSV(&b, []*Summary{a.Finish(&replay.Stop{Reason: "done", Extra: tt.extra})}); err != nil {
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
