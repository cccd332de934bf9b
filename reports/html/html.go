package html

import (
	"bufio"
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/plots"
	"github.com/tracebench/tracebench/verdict"
)

// File is the name of the HTML report, written next to report.md (or
// sweep.md).
const File = "report.html"

// Report is everything report.html shows, as plain data, so that any
// producer of a comparison (a bench run, a sweep, a capacity search
// followed by a confirmation) can fill it and call Write. Every part
// is optional; an empty part is left out of the page.
type Report struct {
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
	Table Table
	// Sections are further titled tables shown after the comparison (a
	// two-stage agreement, a timing detail, ...).
	Sections []Section
	// Runs are the runs whose distributions and time series are plotted:
	// TTFT and TBT CDFs, server against predicted hit rate, and the
	// timeline of TTFT and requests in flight.
	Runs []*metrics.Summary
	// Capacity is the data of the capacity curve (nil: no curve).
	Capacity *plots.CapacityData
	// Pareto is a sweep's throughput per user against per replica (nil:
	// no plot).
	Pareto *plots.ParetoData
	// Config lists the run configuration as label/value pairs;
	// ConfigTable, when set, adds a row per run.
	Config      []Item
	ConfigTable *Table
	// Warnings say where the measurement itself is doubtful.
	Warnings []Warning
	// Glossary defines every figure the page shows, one metric per
	// item, closing the page.
	Glossary []Item
}

// Item is one labelled value of a list.
type Item struct {
	Label, Value string
}

// Table is a table of cells under a header row.
type Table struct {
	// Head holds the column headers.
	Head []string
	// Rows hold one cell per column.
	Rows [][]Cell
	// Note is shown under the table ("" for none).
	Note string
}

// Cell is one table cell: its text and, for a figure, the number it
// sorts by.
type Cell struct {
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
func TextCell(s string) Cell { return Cell{Text: s} }

// NumCell is a cell showing text that sorts by v.
func NumCell(text string, v float64) Cell { return Cell{Text: text, Num: true, Key: v} }

// Section is a titled part of the page: a paragraph and a table.
type Section struct {
	// ID is the section's element id (letters, digits, '-'); Title its
	// heading.
	ID, Title string
	// Text is a paragraph above the table ("" for none).
	Text string
	// Table is the section's table (nil for none).
	Table *Table
}

// Warning is one problem with the measurement and the runs it hit.
type Warning struct {
	// Title names the problem; Why says what it means.
	Title, Why string
	// Lines name each run it hit, with the figure.
	Lines []string
}

// Beside is the path of the HTML report next to the report at path
// (report.md or sweep.md).
func Beside(path string) string {
	return filepath.Join(filepath.Dir(path), File)
}

// WriteFile writes r into dir/report.html; dir must exist.
func WriteFile(dir string, r *Report) error {
	path := filepath.Join(dir, File)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	bw := bufio.NewWriter(f)
	if err := Write(bw, r); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", File, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Write writes r as one self-contained HTML document: inline CSS,
// inline SVG plots and a short inline script that only sorts tables; it
// loads nothing from anywhere.
func Write(w io.Writer, r *Report) error {
	drawn, err := plots.Page(plots.PageData{Runs: r.Runs, Capacity: r.Capacity, Pareto: r.Pareto})
	if err != nil {
		return err
	}
	figs := make([]figure, len(drawn))
	for i, p := range drawn {
		figs[i] = figure{ID: p.ID, Title: p.Title, Caption: p.Caption, SVG: inlineSVG(p.SVG)}
	}
	title := r.Title
	if title == "" {
		title = "tracebench report"
	}
	data := page{R: r, Title: title, Plots: figs,
		CSS: template.CSS(pageCSS), JS: template.JS(pageJS)}
	if r.Verdict != nil {
		data.Headline = textfmt.Capitalize(r.Verdict.Headline())
		data.VerdictTable = verdictTable(r.Verdict)
		data.ProfileNote = textfmt.Capitalize(strings.TrimSuffix(r.Verdict.ProfileNote, "."))
	}
	if err := pageTemplate.Execute(w, data); err != nil {
		return fmt.Errorf("write %s: %w", File, err)
	}
	return nil
}

// page is the template's data.
type page struct {
	R            *Report
	Title        string
	Headline     string
	ProfileNote  string
	VerdictTable *Table
	Plots        []figure
	CSS          template.CSS
	JS           template.JS
}

// figure is one plot of the page, drawn as inline SVG.
type figure struct {
	ID, Title, Caption string
	SVG                template.HTML
}

// inlineSVG drops what precedes the <svg> element (the XML declaration
// and comments), which an HTML document must not carry inline.
func inlineSVG(b []byte) template.HTML {
	if i := bytes.Index(b, []byte("<svg")); i > 0 {
		b = b[i:]
	}
	// gonum drew it; its SVG writer escapes every label.
	return template.HTML(b)
}

// verdictTable lists each policy's deciding figure with its interval.
func verdictTable(v *verdict.Verdict) *Table {
	t := &Table{Head: []string{"policy", v.Metric + " (" + v.Unit + ")"}}
	good := len(v.Rows) > 0 && !math.IsNaN(v.Rows[0].Goodput)
	if good {
		t.Head = append(t.Head, "goodput req/s")
	}
	for _, r := range v.Rows {
		row := []Cell{TextCell(r.Policy), NumCell(r.Interval(v.Unit), r.Mean)}
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
func sortKey(c Cell) string {
	if math.IsNaN(c.Key) || math.IsInf(c.Key, 0) {
		return ""
	}
	return strconv.FormatFloat(c.Key, 'g', 6, 64)
}
