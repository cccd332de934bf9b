package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
	"github.com/tracebench/tracebench/reports/plots"
	"github.com/tracebench/tracebench/verdict"
)

// RenderOptions control the markdown report.
type RenderOptions struct {
	// Title heads the report (default "tracebench report").
	Title string
	// PNG also writes every plot as PNG and embeds the PNGs instead of
	// the SVGs (default: SVG only).
	PNG bool
	// NoPlots leaves the plots out (default: plots are drawn).
	NoPlots bool
	// TopUsers is how many users, largest demand first, the per-user
	// table shows (default 8); WorstUsers how many worst-served users
	// are added below them (default 3).
	TopUsers, WorstUsers int
	// Prediction, when set, adds a "Prediction error" section comparing a
	// simulated replay with the measured run.
	Prediction *verdict.Prediction
	// Verdict, when set, opens the report with the policy to pick.
	Verdict *verdict.Verdict
	// Capacity, when set, adds its capacity curve to report.html (e.g.
	// from a capacity search that ran before these runs).
	Capacity *plots.CapacityData
	// Sections, when set, are added to report.html after the comparison
	// (e.g. how two stages of a comparison agree).
	Sections []html.Section
	// Decision, when set, follows the verdict with bench's two stages:
	// capacity in virtual time, the real-time confirmation, their
	// agreement.
	Decision *verdict.Decision
}

func (o RenderOptions) withDefaults() RenderOptions {
	if o.Title == "" {
		o.Title = "tracebench report"
	}
	if o.TopUsers <= 0 {
		o.TopUsers = 8
	}
	if o.WorstUsers <= 0 {
		o.WorstUsers = 3
	}
	return o
}

// WriteMarkdown writes dir/report.md and its plots under dir/plots/,
// embedded by relative path.
func WriteMarkdown(dir string, runs []*metrics.Summary, o RenderOptions) error {
	o = o.withDefaults()
	labelRuns(runs)
	var refs []plots.Ref
	if !o.NoPlots {
		var err error
		if refs, err = plots.WriteRuns(filepath.Join(dir, "plots"), runs, o.PNG); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dir, "report.md"))
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	bw := bufio.NewWriter(f)
	renderMarkdown(bw, runs, refs, o)
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write report %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", f.Name(), err)
	}
	return nil
}

// renderMarkdown writes the report's text; plots are already drawn.
func renderMarkdown(w io.Writer, runs []*metrics.Summary, refs []plots.Ref, o RenderOptions) {
	fmt.Fprintf(w, "# %s\n\n", o.Title)
	writeVerdict(w, o.Verdict)
	writeDecision(w, o.Decision)
	writeIntro(w, runs)
	writeConfig(w, runs)
	writeWarnings(w, runs)
	writeComparison(w, runs)
	writePrediction(w, o.Prediction)
	writeDetails(w, runs)
	writePlotSection(w, refs)
	writeBackends(w, runs)
	writeFleet(w, runs)
	writeKVEvents(w, runs)
	writePD(w, runs)
	writeLoRAView(w, runs)
	writeUsers(w, runs, o)
	writeSessions(w, runs)
	writeGlossary(w)
}

// writePlotSection embeds the drawn plots, each under its title with its
// caption.
func writePlotSection(w io.Writer, refs []plots.Ref) {
	if len(refs) == 0 {
		return
	}
	fmt.Fprint(w, "## Plots\n\n")
	for _, p := range refs {
		fmt.Fprintf(w, "### %s\n\n%s\n\n![%s](%s)\n\n", p.Title, p.Caption, p.Title, p.File)
	}
}

// mdTable writes a markdown table; align holds one of "l", "r" per column.
func mdTable(w io.Writer, head []string, align string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n|", strings.Join(head, " | "))
	for i := range head {
		if i < len(align) && align[i] == 'l' {
			fmt.Fprint(w, " :--- |")
		} else {
			fmt.Fprint(w, " ---: |")
		}
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(w)
}

// mdEscape keeps a value from breaking a markdown table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`).Replace(s)
}

func writeGlossary(w io.Writer) {
	fmt.Fprint(w, "## Glossary\n\n")
	var rows [][]string
	for _, g := range Glossary() {
		rows = append(rows, []string{"**" + g.Metric + "**", g.Definition})
	}
	mdTable(w, []string{"metric", "definition"}, "ll", rows)
}
