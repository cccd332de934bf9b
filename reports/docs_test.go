package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsListEveryColumn keeps docs/reports.md in step with the CSV
// columns and the glossary.
func TestDocsListEveryColumn(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "reports.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range append(SummaryColumns(), requestColumns...) {
		if !strings.Contains(doc, "`"+c+"`") {
			t.Errorf("docs/reports.md does not document column %q", c)
		}
	}
	for _, g := range Glossary() {
		if !strings.Contains(strings.ToLower(doc), "| "+strings.ToLower(g.Metric)+" |") {
			t.Errorf("docs/reports.md does not define metric %q", g.Metric)
		}
	}
}
