package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
	"github.com/tracebench/tracebench/reports/plots"
	"github.com/tracebench/tracebench/verdict"
)

// The sweep's plots, relative to the report.
const (
	sweepPlotFile   = "plots/sweep-capacity.svg"
	sweepParetoFile = "plots/sweep-pareto.svg"
)

// WriteSweepDir writes the sweep report into dir (created if needed):
// sweep.md with its plots plots/sweep-capacity.svg and
// plots/sweep-pareto.svg (throughput per user against per replica, when
// the runs measured TPOT), report.html (self-contained) and sweep.csv
// with one row per run.
func WriteSweepDir(dir string, s *verdict.Sweep) error {
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		return fmt.Errorf("sweep report dir: %w", err)
	}
	plotted, err := plots.SaveCapacity(filepath.Join(dir, sweepPlotFile), plots.CapacityFromSweep(s))
	if err != nil {
		return err
	}
	pareto, err := plots.SavePareto(filepath.Join(dir, sweepParetoFile), plots.ParetoFromSweep(s))
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "sweep.md"), func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		WriteSweepMarkdown(bw, s, plotted)
		if pareto {
			fmt.Fprintf(bw, "## Throughput per user against throughput per replica\n\n%s\n\n![Pareto](%s)\n\n",
				plots.ParetoCaption, sweepParetoFile)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write sweep.md: %w", err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := html.WriteFile(dir, HTMLFromSweep(s)); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "sweep.csv"), func(w io.Writer) error { return WriteSweepCSV(w, s) })
}

// WriteSweepMarkdown writes the sweep report's text; plot says whether
// plots/sweep-capacity.svg was drawn and is embedded.
func WriteSweepMarkdown(w io.Writer, s *verdict.Sweep, plot bool) {
	fmt.Fprintf(w, "# %s\n\n", s.DisplayTitle())
	writeVerdict(w, s.Verdict)
	fmt.Fprintf(w, "For each policy, the highest %s at which SLA attainment stayed at or above %s "+
		"(%s; failed requests count as missed). %s\n\n", s.Load(), textfmt.Pct(s.Target), metrics.SLOText(s.SLO), methodText(s))
	writeSweepSetup(w, s)
	fmt.Fprintf(w, "## Sustained %s per policy\n\n", s.Short())
	head, rows := sweepTable(s)
	for _, r := range rows {
		r[0] = mdEscape(r[0])
	}
	mdTable(w, head, "l", rows)
	fmt.Fprintf(w, "SLA met, goodput and the latency percentiles are those of the run at the sustained rate. "+
		"Gain is the sustained rate over %s's, minus one. Broke at is the lowest offered rate that failed; "+
		"broke by names what most of its requests missed (errors, or the TTFT, TPOT or E2E bound) and the share "+
		"of requests that missed it, or errors when that run's error rate exceeded the sweep's limit, whether or not "+
		"the limit cut the run short.\n\n", mdEscape(s.Baseline))
	if runs := sustainedRuns(s); showCost(runs) {
		fmt.Fprintf(w, "At each policy's sustained %s:\n\n", s.Short())
		writeCost(w, runs)
	}
	if plot {
		fmt.Fprintf(w, "## SLA attainment and goodput against offered rate\n\n%s\n\n![SLA attainment and goodput](%s)\n\n",
			plots.CapacityCaption(&plots.CapacityData{Target: s.Target}), sweepPlotFile)
	}
	writeSweepRuns(w, s)
}

// methodText says how the rates were chosen.
func methodText(s *verdict.Sweep) string {
	if s.Method == verdict.SweepLadder {
		return "Each policy ran a fixed ladder of rates, lowest first, up to its first failure."
	}
	return fmt.Sprintf("Each policy's %s was found by search: from %s %s the %s is multiplied by %s "+
		"until a run fails (or divided until one passes), then the bracket is bisected geometrically until its "+
		"ends are within %s of each other%s, at most %d runs.", s.Short(), textfmt.Num(s.Start), s.Unit(), s.Short(),
		strconv.FormatFloat(s.Growth, 'g', 4, 64), textfmt.Pct(s.Tolerance), oneUser(s), s.MaxRuns)
}

// writeSweepSetup writes what was run.
func writeSweepSetup(w io.Writer, s *verdict.Sweep) {
	fmt.Fprint(w, "## Setup\n\n")
	rows := sweepSetup(s)
	for _, r := range rows {
		r[1] = mdEscape(r[1])
	}
	mdTable(w, []string{"setting", "value"}, "ll", rows)
}

// sweepSetup lists the sweep's settings as (setting, value) rows.
func sweepSetup(s *verdict.Sweep) [][]string {
	arrival := s.Arrival
	if arrival == "" {
		arrival = "poisson"
	}
	vary := arrival + " arrivals at the offered rate, requests in the workload's order"
	switch s.Vary {
	case verdict.VaryTimeScale:
		vary = "the trace's own arrival times divided by a factor: offered rate = trace rate × factor"
	case verdict.VaryUsers:
		vary = "closed-loop users, each starting the workload's next session as its last one ends"
	}
	requests := "all"
	if s.Requests > 0 {
		requests = strconv.Itoa(s.Requests)
	}
	rows := [][]string{
		{"workload", s.Workload},
		{"fleet", s.Fleet},
		{s.Load(), vary},
		{"workload's own rate", fmtRateUnit(s.NativeRate)},
		{"requests per run", requests},
		{"SLA", fmt.Sprintf("%s; attainment >= %s", metrics.SLOText(s.SLO), textfmt.Pct(s.Target))},
		{"stop a policy when", "a run's error rate exceeds " + textfmt.Pct(s.MaxErrorRate)},
	}
	if s.Warmup > 0 {
		rows = append(rows, []string{"warm-up left out", s.Warmup.String()})
	}
	if s.Method == verdict.SweepLadder {
		rows = append(rows, []string{"ladder (" + s.Unit() + ")", joinNums(s.Rates)})
	}
	return rows
}

// oneUser is the search's other end condition over users.
func oneUser(s *verdict.Sweep) string {
	if s.Vary == verdict.VaryUsers {
		return " or one user apart"
	}
	return ""
}

func fmtRateUnit(r float64) string {
	if !(r > 0) {
		return textfmt.NA
	}
	return textfmt.Num(r) + " req/s"
}

func joinNums(vs []float64) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = textfmt.Num(v)
	}
	return strings.Join(out, ", ")
}

// writeSweepRuns writes every run of every policy in the order run.
func writeSweepRuns(w io.Writer, s *verdict.Sweep) {
	fmt.Fprint(w, "## Runs\n\nEvery run in the order made. Missed TTFT and TPOT count successful requests over "+
		"that bound (a request can miss both).\n\n")
	for i := range s.Policies {
		p := &s.Policies[i]
		fmt.Fprintf(w, "### %s\n\n", mdEscape(p.Policy))
		if p.Stopped != "" {
			fmt.Fprintf(w, "Stopped early: %s.\n\n", mdEscape(p.Stopped))
		}
		head := []string{"#", "offered " + s.Unit()}
		if s.Vary == verdict.VaryTimeScale {
			head = append(head, "factor")
		}
		head = append(head, "requests", "SLA met", "pass", "goodput req/s", "TTFT p50 ms", "TTFT p99 ms",
			"TPOT p50 ms", "TPOT p99 ms", "errors", "missed TTFT", "missed TPOT", "results")
		var rows [][]string
		for j, st := range p.Steps {
			rows = append(rows, runRow(s, j+1, st))
		}
		mdTable(w, head, "", rows)
	}
}

// runRow is one run's row of the runs table.
func runRow(s *verdict.Sweep, n int, st verdict.SweepStep) []string {
	row := []string{strconv.Itoa(n), textfmt.Num(st.Rate)}
	if s.Vary == verdict.VaryTimeScale {
		row = append(row, fmtFactor(s.Factor(st.Rate), st.Rate))
	}
	pass := "no"
	if st.Pass {
		pass = "yes"
	}
	sum := st.Summary
	if sum == nil {
		sum = &metrics.Summary{}
	}
	return append(row, textfmt.Count(sum.Requests), textfmt.Pct(sum.SLA.Attainment), pass, textfmt.Num(sum.SLA.Goodput),
		fmtDist(sum.TTFT, sum.TTFT.P50), fmtDist(sum.TTFT, sum.TTFT.P99), fmtDist(sum.TPOT, sum.TPOT.P50),
		fmtDist(sum.TPOT, sum.TPOT.P99), textfmt.Count(st.Misses.Errors), textfmt.Count(st.Misses.TTFT),
		textfmt.Count(st.Misses.TPOT), "`"+strings.ReplaceAll(st.Results, "|", `\|`)+"`")
}
