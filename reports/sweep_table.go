package reports

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/verdict"
)

// WriteSweepTable writes the terminal table of a sweep: one row per
// policy with its sustained rate, the gain over the baseline, the figures
// of the run at that rate and where the policy broke.
func WriteSweepTable(w io.Writer, s *verdict.Sweep) error {
	head, rows := sweepTable(s)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignRight, PerColumn: []tw.Align{tw.AlignLeft}}))
	t.Header(toAny(head)...)
	for _, r := range rows {
		if err := t.Append(toAny(r)...); err != nil {
			return fmt.Errorf("sweep table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("sweep table: %w", err)
	}
	_, err := fmt.Fprintf(w, "sustained: highest %s with SLA attainment >= %s (%s)\n",
		s.Load(), textfmt.Pct(s.Target), metrics.SLOText(s.SLO))
	return err
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// sweepTable returns the per-policy table's header and rows.
func sweepTable(s *verdict.Sweep) ([]string, [][]string) {
	head := []string{"policy", "sustained " + s.Unit()}
	if s.Vary == verdict.VaryTimeScale {
		head = append(head, "time-scale factor")
	}
	head = append(head, "gain vs "+s.Baseline, "SLA met", "goodput req/s", "TTFT p50 ms", "TTFT p99 ms",
		"TPOT p50 ms", "TPOT p99 ms", "broke at "+s.Unit(), "broke by", "runs")
	var rows [][]string
	for i := range s.Policies {
		rows = append(rows, sweepRow(s, &s.Policies[i]))
	}
	return head, rows
}

// sweepRow is one policy's row of sweepTable.
func sweepRow(s *verdict.Sweep, p *verdict.SweepPolicy) []string {
	row := []string{p.Policy, fmtRate(p.Sustained)}
	if s.Vary == verdict.VaryTimeScale {
		row = append(row, fmtFactor(s.Factor(p.Sustained), p.Sustained))
	}
	row = append(row, fmtGain(s, p))
	sum := &metrics.Summary{SLA: metrics.SLA{Attainment: math.NaN(), Goodput: math.NaN()}}
	if st := p.StepAt(p.Sustained); st != nil && st.Summary != nil {
		sum = st.Summary
	}
	row = append(row, textfmt.Pct(sum.SLA.Attainment), textfmt.Num(sum.SLA.Goodput), fmtDist(sum.TTFT, sum.TTFT.P50),
		fmtDist(sum.TTFT, sum.TTFT.P99), fmtDist(sum.TPOT, sum.TPOT.P50), fmtDist(sum.TPOT, sum.TPOT.P99))
	broke, by := fmtRate(p.Broken), p.BrokeBy(s.MaxErrorRate)
	if p.Broken == 0 {
		broke, by = "not reached", ""
		if hi := highestRate(p); hi > 0 {
			broke = "> " + textfmt.Num(hi)
		}
	}
	runs := strconv.Itoa(len(p.Steps))
	if !p.Converged {
		runs += " (not converged)"
	}
	return append(row, broke, by, runs)
}

// highestRate is the highest rate p ran at.
func highestRate(p *verdict.SweepPolicy) float64 {
	hi := 0.0
	for _, st := range p.Steps {
		hi = math.Max(hi, st.Rate)
	}
	return hi
}

// fmtRate formats a rate in req/s, "none" for 0 (no rate passed).
func fmtRate(r float64) string {
	if r == 0 {
		return "none"
	}
	return textfmt.Num(r)
}

// fmtFactor formats a time-scale factor as "×2.50".
func fmtFactor(f, rate float64) string {
	if rate == 0 || math.IsNaN(f) {
		return textfmt.NA
	}
	return "×" + textfmt.Num(f)
}

// fmtGain formats p's gain over the baseline as a signed percentage.
func fmtGain(s *verdict.Sweep, p *verdict.SweepPolicy) string {
	if p.Policy == s.Baseline {
		return "baseline"
	}
	g := s.Gain(p)
	if math.IsNaN(g) {
		return textfmt.NA
	}
	return fmt.Sprintf("%+.1f %%", 100*g)
}

// fmtDist formats a percentile of d, n/a when d is empty.
func fmtDist(d metrics.Dist, v float64) string {
	if d.Count == 0 {
		return textfmt.NA
	}
	return textfmt.Num(v)
}
