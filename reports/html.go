package reports

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/verdict"
)

// HTMLFile is the name of the HTML report, written next to report.md
// (or sweep.md).
const HTMLFile = "report.html"

// HTMLReport is everything report.html shows, as plain data, so that any
// producer of a comparison (a bench run, a sweep, a capacity search
// followed by a confirmation) can fill it and call WriteHTML. Every part
// is optional; an empty part is left out of the page.
type HTMLReport struct {
	// Title heads the page (default "tracebench report").
	Title string
	// Verdict opens the page: the policy to pick with its margin.
	Verdict *verdict.Verdict
	// VerdictNote replaces the verdict when there is none, saying why
	// (e.g. "one run: nothing to compare").
	VerdictNote string
	// Lead holds paragraphs under the verdict: the question the report
	// answers and how to read it.
	Lead []string
	// Table is the per-policy comparison, sortable by any column.
	Table HTMLTable
	// Sections are further titled tables shown after the comparison (a
	// two-stage agreement, a timing detail, ...).
	Sections []HTMLSection
	// Runs are the runs whose distributions and time series are plotted:
	// TTFT and TBT CDFs, server against predicted hit rate, and the
	// timeline of TTFT and requests in flight.
	Runs []*metrics.Summary
	// Capacity is the data of the capacity curve (nil: no curve).
	Capacity *CapacityData
	// Pareto is a sweep's throughput per user against per replica (nil:
	// no plot).
	Pareto *ParetoData
	// Config lists the run configuration as label/value pairs;
	// ConfigTable, when set, adds a row per run.
	Config      []HTMLItem
	ConfigTable *HTMLTable
	// Warnings say where the measurement itself is doubtful.
	Warnings []HTMLWarning
}

// HTMLItem is one labelled value of a list.
type HTMLItem struct {
	Label, Value string
}

// HTMLTable is a table of cells under a header row.
type HTMLTable struct {
	// Head holds the column headers.
	Head []string
	// Rows hold one cell per column.
	Rows [][]HTMLCell
	// Note is shown under the table ("" for none).
	Note string
}

// HTMLCell is one table cell: its text and, for a figure, the number it
// sorts by.
type HTMLCell struct {
	// Text is shown as is ("n/a" for a figure that could not be
	// measured).
	Text string
	// Num says Key is the cell's sort key; otherwise it sorts by Text.
	Num bool
	// Key is the figure in the column's unit (NaN sorts last).
	Key float64
	// Best marks the best value of its column (bold).
	Best bool
}

// TextCell is a cell that sorts by its text.
func TextCell(s string) HTMLCell { return HTMLCell{Text: s} }

// NumCell is a cell showing text that sorts by v.
func NumCell(text string, v float64) HTMLCell { return HTMLCell{Text: text, Num: true, Key: v} }

// HTMLSection is a titled part of the page: a paragraph and a table.
type HTMLSection struct {
	// ID is the section's element id (letters, digits, '-'); Title its
	// heading.
	ID, Title string
	// Text is a paragraph above the table ("" for none).
	Text string
	// Table is the section's table (nil for none).
	Table *HTMLTable
}

// HTMLWarning is one problem with the measurement and the runs it hit.
type HTMLWarning struct {
	// Title names the problem; Why says what it means.
	Title, Why string
	// Lines name each run it hit, with the figure.
	Lines []string
}

// CapacityData is a capacity curve: for each policy, SLA attainment and
// goodput at a series of offered rates, and the attainment a rate must
// reach to count as sustained.
type CapacityData struct {
	// Target is the SLA attainment a rate must reach, in [0, 1].
	Target float64
	// Note adds to the plot's caption (where the points come from).
	Note string
	// Users marks a sweep over concurrent users: the x axis counts
	// users, and goodput has no offered rate to reach.
	Users bool
	// Curves are one per policy, in legend order.
	Curves []verdict.CapacityCurve
}

// HTMLBeside is the path of the HTML report next to the report at path
// (report.md or sweep.md).
func HTMLBeside(path string) string {
	return filepath.Join(filepath.Dir(path), HTMLFile)
}

// WriteHTMLFile writes r into dir/report.html.
func WriteHTMLFile(dir string, r *HTMLReport) error {
	return writeFile(filepath.Join(dir, HTMLFile), func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if err := WriteHTML(bw, r); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", HTMLFile, err)
		}
		return nil
	})
}

// WriteHTML writes r as one self-contained HTML document: inline CSS,
// inline SVG plots and a short inline script that only sorts tables; it
// loads nothing from anywhere.
func WriteHTML(w io.Writer, r *HTMLReport) error {
	plots, err := htmlPlots(r)
	if err != nil {
		return err
	}
	title := r.Title
	if title == "" {
		title = "tracebench report"
	}
	data := htmlPage{R: r, Title: title, Plots: plots, Glossary: Glossary(),
		CSS: template.CSS(htmlCSS), JS: template.JS(htmlJS)}
	if r.Verdict != nil {
		data.Headline = capitalize(r.Verdict.Headline())
		data.VerdictTable = verdictTable(r.Verdict)
		data.ProfileNote = capitalize(strings.TrimSuffix(r.Verdict.ProfileNote, "."))
	}
	if err := htmlTemplate.Execute(w, data); err != nil {
		return fmt.Errorf("write %s: %w", HTMLFile, err)
	}
	return nil
}

// htmlPage is the template's data.
type htmlPage struct {
	R            *HTMLReport
	Title        string
	Headline     string
	ProfileNote  string
	VerdictTable *HTMLTable
	Plots        []htmlPlot
	Glossary     []GlossaryEntry
	CSS          template.CSS
	JS           template.JS
}

// verdictTable lists each policy's deciding figure with its interval.
func verdictTable(v *verdict.Verdict) *HTMLTable {
	t := &HTMLTable{Head: []string{"policy", v.Metric + " (" + v.Unit + ")"}}
	good := len(v.Rows) > 0 && !math.IsNaN(v.Rows[0].Goodput)
	if good {
		t.Head = append(t.Head, "goodput req/s")
	}
	for _, r := range v.Rows {
		row := []HTMLCell{TextCell(r.Policy), NumCell(r.Interval(v.Unit), r.Mean)}
		if good {
			row = append(row, NumCell(textfmt.Num(r.Goodput), r.Goodput))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// sortKey is a cell's data-v attribute: the key to six significant
// digits (past them sums differ with the order of addition), or "" for
// NaN.
func sortKey(c HTMLCell) string {
	if math.IsNaN(c.Key) || math.IsInf(c.Key, 0) {
		return ""
	}
	return strconv.FormatFloat(c.Key, 'g', 6, 64)
}
