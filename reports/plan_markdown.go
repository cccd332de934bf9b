package reports

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// planHead is the plan table's header.
var planHead = []string{"policy", "replicas", "SLA met", "TTFT p50 ms", "TTFT p90 ms", "TPOT p50 ms",
	"$/hour", "$ / M output tokens"}

// WritePlanMarkdown writes the plan: the question, one row per router,
// the routers whose target was not met, the P/D splits and the check.
func WritePlanMarkdown(w io.Writer, p *Plan) {
	fmt.Fprintf(w, "# tracebench plan\n\n%s\n\n", planQuestion(p))
	mdTable(w, planHead, "l", planRows(p))
	for _, line := range PlanUnmet(p) {
		fmt.Fprintf(w, "%s\n\n", line)
	}
	for _, pd := range p.PD {
		writePlanPD(w, p, pd)
	}
	if p.Check != nil {
		fmt.Fprintf(w, "## Check against the real-time mock\n\n%s\n\n", strings.Join(p.Check.Lines(), "\n"))
	}
}

// planQuestion states what the plan answers.
func planQuestion(p *Plan) string {
	price := "not priced"
	if p.PerHour > 0 {
		price = fmt.Sprintf("$%s per replica-hour (%s)", fmtDollars(p.PerHour), p.PriceSource)
	}
	return fmt.Sprintf("The fewest replicas of engine profile %s that serve %s of %s with at least %s of requests "+
		"meeting %s on every one of %d seed(s), searched up to %d replicas in virtual time; %s.",
		p.Profile, PlanLoad(p, p.target()), p.Workload, textfmt.Pct(p.Target), metrics.SLOText(p.SLO), p.Seeds, p.MaxReplicas, price)
}

// target is the plan's target load in its unit.
func (p *Plan) target() float64 {
	if p.Unit == "users" {
		return float64(p.Users)
	}
	return p.Rate
}

// PlanLoad formats v in the plan's unit ("3.4 req/s", "120 users").
func PlanLoad(p *Plan, v float64) string {
	if p.Unit == "users" {
		return strconv.FormatFloat(v, 'f', 0, 64) + " users"
	}
	return textfmt.Num(v) + " req/s"
}

// planRows are the plan table's rows.
func planRows(p *Plan) [][]string {
	var rows [][]string
	for _, r := range p.Rows {
		if !r.Met() {
			rows = append(rows, []string{mdEscape(r.Policy), fmt.Sprintf("> %d", p.MaxReplicas), textfmt.NA, textfmt.NA, textfmt.NA, textfmt.NA, textfmt.NA, textfmt.NA})
			continue
		}
		f := r.Figures
		rows = append(rows, []string{mdEscape(r.Policy), strconv.Itoa(r.Replicas), textfmt.Pct(f.Attainment),
			textfmt.Num(f.TTFTp50), textfmt.Num(f.TTFTp90), textfmt.Num(f.TPOTp50), priced(f.FleetPerHour), priced(f.PerMOutput)})
	}
	return rows
}

// priced formats dollars, n/a for 0 (not priced).
func priced(v float64) string {
	if v == 0 {
		return textfmt.NA
	}
	return fmtDollars(v)
}

// PlanUnmet says, for each router whose target was not met, so, and the
// largest load its largest fleet met.
func PlanUnmet(p *Plan) []string {
	var out []string
	for _, r := range p.Rows {
		if r.Met() {
			continue
		}
		largest := "no load met, down to the search's lowest"
		if r.LargestMet > 0 {
			largest = "the largest load met was " + PlanLoad(p, r.LargestMet)
		}
		out = append(out, fmt.Sprintf("%s: not met with %d replicas; %s.", r.Policy, p.MaxReplicas, largest))
	}
	return out
}

// writePlanPD writes one router's prefill:decode splits.
func writePlanPD(w io.Writer, p *Plan, pd PlanPD) {
	fmt.Fprintf(w, "## Prefill:decode split of %d replicas, %s\n\n%s\n\n", pd.Size, mdEscape(pd.Policy), PDVerdict(p, pd))
	head := []string{"prefill:decode", "sustained", "SLA met", "TTFT p50 ms", "TPOT p50 ms", "$ / M output tokens", "runs"}
	var rows [][]string
	for _, s := range pd.Splits {
		load := textfmt.NA
		if s.Sustained > 0 {
			load = PlanLoad(p, s.Sustained)
		}
		f := s.Figures
		rows = append(rows, []string{fmt.Sprintf("%d:%d", s.Prefill, s.Decode), load, textfmt.Pct(f.Attainment),
			textfmt.Num(f.TTFTp50), textfmt.Num(f.TPOTp50), priced(f.PerMOutput), strconv.Itoa(s.Runs)})
	}
	mdTable(w, head, "l", rows)
}

// PDVerdict names the split that serves the most under the SLO.
func PDVerdict(p *Plan, pd PlanPD) string {
	if pd.Best < 0 {
		return fmt.Sprintf("%s: no prefill:decode split of %d replicas met the SLO at any load searched.", pd.Policy, pd.Size)
	}
	b := pd.Splits[pd.Best]
	return fmt.Sprintf("%s: split %d:%d serves the most under the SLO, %s.", pd.Policy, b.Prefill, b.Decode,
		PlanLoad(p, b.Sustained))
}

// Lines states the check's figures and the error of each, the mock's
// run taken as the truth.
func (c *PlanCheck) Lines() []string {
	row := func(name, unit string, sim, mock float64) string {
		return fmt.Sprintf("- %s: virtual time %s%s, real time %s%s, error %s", name, textfmt.Num(sim), unit, textfmt.Num(mock), unit,
			relErr(sim, mock))
	}
	return []string{
		fmt.Sprintf("%s on %d replicas, the first %d requests, in virtual time and on the real-time mock fleet "+
			"(%.1f s wall):", c.Policy, c.Replicas, c.Requests, c.Seconds),
		row("SLA attainment", " %", 100*c.Sim.Attainment, 100*c.Mock.Attainment),
		row("TTFT p50", " ms", c.Sim.TTFTp50, c.Mock.TTFTp50),
		row("throughput", " req/s", c.Sim.Throughput, c.Mock.Throughput),
	}
}

// relErr is (sim − mock) / mock as a signed percentage (n/a when mock
// is 0).
func relErr(sim, mock float64) string {
	if mock == 0 {
		if sim == 0 {
			return "0 %"
		}
		return textfmt.NA
	}
	return fmt.Sprintf("%+.1f %%", 100*(sim-mock)/mock)
}
