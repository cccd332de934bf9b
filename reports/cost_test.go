package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
)

// pricedRun is the reasoning run (one backend, 100 output tokens) with
// its backend at perHour $/hour.
func pricedRun(policy string, perHour float64) *metrics.Summary {
	o := metrics.DefaultOptions()
	o.Price = metrics.Price{PerHour: perHour, Source: "--cost-per-hour"}
	s := summarizeReasoning(o)
	s.Header.Policy = policy
	return s
}

func TestCostOf(t *testing.T) {
	s := pricedRun("p", 3.6) // $0.001 per second
	dollars := 0.001 * s.Window.Seconds
	c := s.Cost
	if c.Note != "" || c.FleetPerHour != 3.6 {
		t.Fatalf("cost %+v: want $3.6/hour, no note", c)
	}
	if want := dollars / 100 * 1e6; math.Abs(c.PerMOutputTokens-want) > 1e-6*want {
		t.Errorf("$/M output tokens %v, want %v", c.PerMOutputTokens, want)
	}
	if !math.IsNaN(c.PerMInputTokens) {
		t.Errorf("$/M input tokens %v with no input tokens: want n/a", c.PerMInputTokens)
	}
	if want := dollars / float64(s.SLA.Met); math.Abs(c.PerMetRequest-want) > 1e-9*want {
		t.Errorf("$/met request %v, want %v (%d met)", c.PerMetRequest, want, s.SLA.Met)
	}
}

func TestFleetPerHour(t *testing.T) {
	for _, tt := range []struct {
		name     string
		p        metrics.Price
		backends []string
		want     float64
		reason   string
	}{
		{"flat", metrics.Price{PerHour: 2}, []string{"a", "b"}, 4, ""},
		{"per backend", metrics.Price{PerBackend: map[string]float64{"a": 1, "b": 3}}, []string{"a", "b"}, 4, ""},
		{"override", metrics.Price{PerHour: 2, PerBackend: map[string]float64{"b": 5}}, []string{"a", "b"}, 7, ""},
		{"one unpriced", metrics.Price{PerBackend: map[string]float64{"a": 1}}, []string{"a", "b"}, math.NaN(), "backend b has no price"},
		{"none", metrics.Price{}, []string{"a"}, math.NaN(), "no price"},
	} {
		got, reason := tt.p.FleetPerHour(tt.backends)
		if !(got == tt.want || math.IsNaN(got) && math.IsNaN(tt.want)) || !strings.HasPrefix(reason, tt.reason) ||
			(tt.reason == "") != (reason == "") {
			t.Errorf("%s: %v %q, want %v %q", tt.name, got, reason, tt.want, tt.reason)
		}
	}
}

func TestParsePrice(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		err  string
	}{
		{"2.5", 2.5, ""}, {"$4", 4, ""}, {" 0 ", 0, ""},
		{"-1", 0, "negative price"}, {"abc", 0, "want a price"}, {"NaN", 0, "want a price"}, {"Inf", 0, "want a price"},
	} {
		got, err := metrics.ParsePrice(tt.in)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParsePrice(%q) = %v, %v; want %v, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"2.5", "$4", "-1", "abc", "1e308", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := metrics.ParsePrice(s)
		if err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Errorf("ParsePrice(%q) = %v without an error", s, v)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("ParsePrice(%q): error on several lines: %v", s, err)
		}
	})
}

func TestCheapestUnderSLO(t *testing.T) {
	cheap, dear := pricedRun("cheap", 1), pricedRun("dear", 3)
	missed := pricedRun("missed", 0.5)
	missed.SLA.Attainment = 0.5
	unpriced := summarizeReasoning(metrics.DefaultOptions())
	unpriced.Header.Policy = "unpriced"
	r := CheapestUnderSLO([]*metrics.Summary{dear, missed, cheap, unpriced}, 0.75) // each run keeps 80 %
	if len(r.Met) != 2 || r.Met[0].Policy != "cheap" || r.Met[1].Policy != "dear" || len(r.Missed) != 2 {
		t.Fatalf("rank %+v: want cheap, dear met; missed and unpriced missed", r)
	}
	text := r.Text()
	for _, want := range []string{"cheap at $", "67 % less than dear", "2 policies missed"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
	none := CheapestUnderSLO([]*metrics.Summary{missed}, 0.9)
	if _, ok := none.Cheapest(); ok || !strings.Contains(none.Text(), "none") {
		t.Errorf("with every policy missing the SLO: %q", none.Text())
	}
}

func TestCostInEveryReport(t *testing.T) {
	dir := t.TempDir()
	runs := []*metrics.Summary{pricedRun("cheap", 1), pricedRun("dear", 3)}
	if err := WriteDir(dir, runs, RenderOptions{NoPlots: true}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	page, _ := os.ReadFile(filepath.Join(dir, html.File))
	for name, doc := range map[string]string{"report.md": string(md), "report.html": string(page)} {
		for _, want := range []string{"Cost", "$ / M output tokens", "Cheapest under the SLO", "Price from --cost-per-hour"} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, runs[:1]); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]string{}
	for i, h := range rows[0] {
		col[h] = rows[1][i]
	}
	if col["cost_fleet_per_hour"] != "1" || col["cost_per_m_output_tokens"] == "" || col["cost_per_met_request"] == "" ||
		col["cost_per_m_input_tokens"] != "" {
		t.Errorf("CSV cost columns %v", col)
	}
	var j bytes.Buffer
	if err := WriteJSON(&j, runs[:1]); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Cost struct {
				PerMOutput *float64 `json:"per_m_output_tokens"`
				PerMInput  *float64 `json:"per_m_input_tokens"`
			} `json:"cost"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, j.String())
	}
	if len(doc.Runs) != 1 || doc.Runs[0].Cost.PerMOutput == nil || doc.Runs[0].Cost.PerMInput != nil {
		t.Errorf("JSON cost %+v: want $/M output tokens and null input", doc)
	}
}

func TestNoCostWithoutPrice(t *testing.T) {
	s := summarizeReasoning(metrics.DefaultOptions())
	if !math.IsNaN(s.Cost.PerMOutputTokens) || !strings.HasPrefix(s.Cost.Note, "no price") {
		t.Errorf("unpriced cost %+v: want n/a with the reason", s.Cost)
	}
	var md bytes.Buffer
	writeCost(&md, []*metrics.Summary{s})
	if md.Len() != 0 {
		t.Errorf("an unpriced run shows a cost section:\n%s", md.String())
	}
}
