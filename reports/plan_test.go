package reports

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testPlan is a plan with a met row, an unmet one and a P/D fleet.
func testPlan() *Plan {
	return &Plan{Workload: "mixed", Profile: "small-kv", Rate: 40, Unit: "req/s", Target: 0.9, Seeds: 1, MaxReplicas: 8,
		PerHour: 4, PriceSource: "--cost-per-hour",
		Rows: []PlanRow{
			{Policy: "prefix-cache", Replicas: 3, Figures: PlanFigures{Attainment: 0.95, TTFTp50: 120, FleetPerHour: 12, PerMOutput: 0.5}},
			{Policy: "round-robin", LargestMet: 31.5},
		},
		PD: []PlanPD{{Policy: "prefix-cache", Size: 3, Best: 1, Splits: []PlanSplit{
			{Prefill: 1, Decode: 2, Sustained: 20}, {Prefill: 2, Decode: 1, Sustained: 35}}}},
	}
}

func TestWritePlanMarkdown(t *testing.T) {
	var b bytes.Buffer
	WritePlanMarkdown(&b, testPlan())
	for _, w := range []string{"| prefix-cache | 3 | 95.0 % | 120 |", "| round-robin | > 8 | n/a |",
		"round-robin: not met with 8 replicas; the largest load met was 31.5 req/s.",
		"prefix-cache: split 2:1 serves the most under the SLO, 35.0 req/s.", "$4 per replica-hour"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("plan.md lacks %q:\n%s", w, b.String())
		}
	}
}

func TestWritePlanCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WritePlanCSV(&b, testPlan()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || rows[2][1] != "round-robin" || rows[2][7] != "false" || rows[2][16] != "31.5" || rows[4][0] != "pd" {
		t.Errorf("plan.csv rows: %v", rows)
	}
}

// TestDocsListEveryPlanColumn keeps docs/plan.md in step with plan.csv.
func TestDocsListEveryPlanColumn(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range planCSVHead {
		if !strings.Contains(string(doc), "`"+c+"`") {
			t.Errorf("docs/plan.md does not document plan.csv column %q", c)
		}
	}
}
