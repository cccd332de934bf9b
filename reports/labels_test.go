package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

func TestLabelRuns(t *testing.T) {
	run := func(policy string, seed uint64, api string, params map[string]string) *metrics.Summary {
		return &metrics.Summary{Header: results.Header{Policy: policy, Seed: seed, RouterParams: params,
			Config: results.RunConfig{API: api}, Started: time.Unix(0, 0)}}
	}
	tests := []struct {
		name string
		runs []*metrics.Summary
		want []string
	}{
		{"distinct policies untouched", []*metrics.Summary{run("a", 1, "chat", nil), run("b", 1, "chat", nil)}, []string{"a", "b"}},
		{"seed differs", []*metrics.Summary{run("a", 1, "chat", nil), run("a", 2, "chat", nil), run("b", 1, "chat", nil)},
			[]string{"a (seed 1)", "a (seed 2)", "b"}},
		{"api and seed differ", []*metrics.Summary{run("a", 1, "chat", nil), run("a", 2, "completions", nil)},
			[]string{"a (api chat)", "a (api completions)"}},
		{"params differ", []*metrics.Summary{run("a", 1, "chat", map[string]string{"k": "1"}), run("a", 1, "chat", nil)},
			[]string{"a (k=1)", "a (defaults)"}},
		{"alike", []*metrics.Summary{run("a", 1, "chat", nil), run("a", 1, "chat", nil)}, []string{"a #1", "a #2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			labelRuns(tc.runs)
			var got []string
			for _, s := range tc.runs {
				got = append(got, s.Name())
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
		})
	}
}

// TestTableLabelsRepeatedPolicy checks two runs of one policy get
// distinct rows in the terminal table.
func TestTableLabelsRepeatedPolicy(t *testing.T) {
	a := &metrics.Summary{Header: results.Header{Policy: "round-robin", Seed: 1}}
	b := &metrics.Summary{Header: results.Header{Policy: "round-robin", Seed: 2}}
	var out strings.Builder
	if err := WriteTable(&out, []*metrics.Summary{a, b}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"round-robin (seed 1)", "round-robin (seed 2)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
