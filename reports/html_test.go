package reports

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
	"github.com/tracebench/tracebench/reports/plots"
	"github.com/tracebench/tracebench/verdict"
)

// testCapacity is a capacity curve as a search other than sweep would
// report it: points in any order, one goodput unknown.
func testCapacity() *plots.CapacityData {
	return &plots.CapacityData{Target: 0.9, Note: "Virtual time.", Curves: []verdict.CapacityCurve{
		{Policy: "a", Points: []verdict.CapacityPoint{{Rate: 12, Attainment: 0.5, Goodput: 5}, {Rate: 4, Attainment: 1, Goodput: 3.9, Pass: true}}},
		{Policy: "b", Points: []verdict.CapacityPoint{{Rate: 4, Attainment: 0.95, Goodput: 3.7, Pass: true}, {Rate: 8, Attainment: 0.4, Goodput: math.NaN()}}}}}
}

// testAgreement is a section a two-stage comparison would add.
func testAgreement() html.Section {
	return html.Section{ID: "agreement", Title: "Agreement", Text: "Virtual time against real time.",
		Table: &html.Table{Head: []string{"policy", "error %"}, Rows: [][]html.Cell{{html.TextCell("a"), html.NumCell("3.1", 3.1)}}}}
}

// genericHTML is a report filled by hand, as a producer other than
// bench or sweep would: a verdict, a capacity curve from its own search
// and a section of its own.
func genericHTML(t *testing.T) *html.Report {
	t.Helper()
	runs := goldenSummaries(t)
	v := verdict.DecideCapacityVerdict([]string{"a", "b"}, map[string][]float64{"a": {9, 10, 11}, "b": {6, 7, 6.5}}, runs[0].Options.SLO)
	return &html.Report{Title: "Two-stage", Verdict: v, Runs: runs[:1],
		Table: html.Table{Head: []string{"policy", "capacity req/s"},
			Rows: [][]html.Cell{{html.TextCell("a"), html.NumCell("10", 10)}, {html.TextCell("b"), html.NumCell("n/a", math.NaN())}}},
		Capacity: testCapacity(), Sections: []html.Section{testAgreement()}}
}

// renderHTML writes r and returns the document.
func renderHTML(t *testing.T, r *html.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := html.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// external matches a reference that would load something from elsewhere.
var external = regexp.MustCompile(`(?i)(\b(src|href|xlink:href|action)\s*=\s*["']?\s*(https?:|//|data:|file:))|<link\b|<iframe\b|<img\b|@import|url\(|<script[^>]*\bsrc\b`)

func TestHTMLStructure(t *testing.T) {
	for _, tc := range []struct {
		name     string
		doc      func(t *testing.T) *html.Report
		ids      []string
		contains []string
		absent   []string
	}{
		{"runs", func(t *testing.T) *html.Report { return HTMLFromRuns(goldenSummaries(t), RenderOptions{}) },
			[]string{"plot-ttft-cdf", "plot-tbt-cdf", "plot-hit", "plot-timeline"},
			[]string{"Pick prefix-cache", "TTFT p99 ms", `<a href="#warnings">3 warning(s)</a>`, "workload mixed (test)", "The host took CPU time", "hit rate (predicted)"}, nil},
		{"sweep", func(t *testing.T) *html.Report { return HTMLFromSweep(synthSweep(t)) },
			[]string{"plot-capacity"},
			[]string{"Pick prefix-cache: sustained rate", "sustained req/s", "trace.jsonl (mooncake)", "A policy&#39;s sweep stopped early"}, nil},
		{"prediction", func(t *testing.T) *html.Report {
			runs := goldenSummaries(t)
			return HTMLFromRuns(runs[:2], RenderOptions{Prediction: verdict.ComparePrediction("mock-default", runs[0], runs[1])})
		}, []string{"prediction"}, []string{"No verdict: this report sets a measured run", "TTFT p50", "mock-default"}, []string{"Pick "}},
		{"runs with a capacity stage", func(t *testing.T) *html.Report {
			return HTMLFromRuns(goldenSummaries(t), RenderOptions{Capacity: testCapacity(), Sections: []html.Section{testAgreement()}})
		}, []string{"plot-capacity", "plot-ttft-cdf", "agreement"}, []string{"Virtual time against real time.", "Pick prefix-cache"}, nil},
		{"bench decision", func(t *testing.T) *html.Report {
			capv := verdict.DecideCapacityVerdict([]string{"a", "b"}, map[string][]float64{"a": {10, 12, 11}, "b": {8, 9, 8}}, metrics.SLO{})
			d := &verdict.Decision{Question: "which router sustains more", CapacityVerdict: capv,
				Capacity: &verdict.Sweep{Target: 0.9, Policies: []verdict.SweepPolicy{{Policy: "a", Sustained: 11, Steps: []verdict.SweepStep{
					{Rate: 20, Summary: &metrics.Summary{}}, {Rate: 5, Pass: true, Summary: &metrics.Summary{SLA: metrics.SLA{Attainment: 1}}}}}}}}
			return HTMLFromRuns(goldenSummaries(t), RenderOptions{Decision: d})
		}, []string{"stage1", "plot-capacity"}, []string{"Question: which router sustains more", "3 run(s).", "Pick a: sustained rate"}, nil},
		{"generic", genericHTML,
			[]string{"plot-capacity", "plot-ttft-cdf", "agreement"},
			[]string{"Pick a: sustained rate 10 req/s", "Virtual time against real time.", "Virtual time."}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := renderHTML(t, tc.doc(t))
			checkHTMLDoc(t, doc, append([]string{"verdict", "comparison", "config", "warnings", "glossary"}, tc.ids...))
			for _, s := range tc.contains {
				if !strings.Contains(doc, s) {
					t.Errorf("document lacks %q", s)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(doc, s) {
					t.Errorf("document has %q", s)
				}
			}
		})
	}
}

// checkHTMLDoc checks what every report must be: one document with the
// verdict first, the sections by id, balanced elements, tables whose
// rows fit their header, and nothing loaded from elsewhere.
func checkHTMLDoc(t *testing.T, doc string, ids []string) {
	t.Helper()
	if !strings.HasPrefix(doc, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(doc), "</html>") {
		t.Errorf("not one HTML document")
	}
	for _, id := range ids {
		if strings.Count(doc, `id="`+id+`"`) != 1 {
			t.Errorf("want one element with id %q", id)
		}
	}
	if v, c := strings.Index(doc, `id="verdict"`), strings.Index(doc, `id="comparison"`); v < 0 || v > c {
		t.Errorf("the verdict does not come first")
	}
	for _, el := range []string{"section", "table", "svg", "figure", "script", "style", "dl", "ul"} {
		if o, c := len(regexp.MustCompile(`<`+el+`[\s>]`).FindAllString(doc, -1)), strings.Count(doc, "</"+el+">"); o != c {
			t.Errorf("<%s>: %d opened, %d closed", el, o, c)
		}
	}
	if m := external.FindString(doc); m != "" {
		t.Errorf("document loads an external resource: %q", m)
	}
	if strings.Count(doc, "<script") != 1 || strings.Count(doc, "<style") != 1 {
		t.Errorf("want one inline script and one inline style")
	}
	for _, tbl := range regexp.MustCompile(`(?s)<table.*?</table>`).FindAllString(doc, -1) {
		cols := len(thOpen.FindAllString(tbl[:strings.Index(tbl, "</thead>")], -1))
		for _, tr := range strings.Split(tbl, "<tr>")[2:] {
			if n := strings.Count(tr, "<td"); n != cols {
				t.Errorf("row of %d cells under %d headers: %.80s", n, cols, tr)
			}
		}
	}
}

// thOpen matches a header cell's start tag.
var thOpen = regexp.MustCompile(`<th[\s>]`)

func TestHTMLGolden(t *testing.T) {
	runs := goldenSummaries(t)
	doc := renderHTML(t, HTMLFromRuns(runs, RenderOptions{Title: "Golden report"}))
	checkGolden(t, "report.html", []byte(doc))
}

func TestHTMLEscapesText(t *testing.T) {
	r := &html.Report{Title: `<b>x</b>`, VerdictNote: `a <script>alert(1)</script> & "b"`,
		Table: html.Table{Head: []string{"<i>h</i>"}, Rows: [][]html.Cell{{html.TextCell("<img src=x>")}}}}
	doc := renderHTML(t, r)
	for _, bad := range []string{"<script>alert", "<img", "<b>x</b>", "<i>h</i>"} {
		if strings.Contains(doc, bad) {
			t.Errorf("%q reached the document unescaped", bad)
		}
	}
	checkHTMLDoc(t, doc, []string{"verdict", "comparison", "glossary"})
}

func TestLeadingNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"12.5", 12.5}, {"+23 %", 23}, {"-4.0 %", -4}, {"> 8", 8}, {"×2.71", 2.71}, {"95.0 %", 95}, {"3 (not converged)", 3},
		{"n/a", math.NaN()}, {"not reached", math.NaN()}, {"", math.NaN()}, {"TTFT 40 %", math.NaN()},
	} {
		got := leadingNumber(tc.in)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("leadingNumber(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestWriteDirWritesHTML: the report and sweep writers put report.html
// next to their markdown.
func TestWriteDirWritesHTML(t *testing.T) {
	dir := t.TempDir()
	if err := WriteDir(dir, goldenSummaries(t), RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	sweepDir := t.TempDir()
	if err := WriteSweepDir(sweepDir, synthSweep(t)); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, sweepDir} {
		b, err := os.ReadFile(filepath.Join(d, html.File))
		if err != nil {
			t.Fatal(err)
		}
		checkHTMLDoc(t, string(b), []string{"verdict", "comparison", "plots"})
	}
}

// FuzzLeadingNumber: any cell text gives a finite number or NaN (never
// a panic or an infinity), and a blank cell gives NaN.
func FuzzLeadingNumber(f *testing.F) {
	for _, s := range []string{"12.5", "n/a", "", "> ", "+", "×", "1e400", "-0 %", "inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := leadingNumber(s)
		if math.IsInf(v, 0) || (!math.IsNaN(v) && strings.TrimSpace(s) == "") {
			t.Errorf("leadingNumber(%q) = %v", s, v)
		}
	})
}
