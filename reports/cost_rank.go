package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// CostRow is one policy's mean cost and SLA attainment over its runs.
type CostRow struct {
	// Policy is the runs' policy name; Runs how many there were.
	Policy string `json:"policy"`
	Runs   int    `json:"runs"`
	// PerMOutputTokens is the mean $ per million output tokens (NaN when
	// a run is not priced); Attainment the mean SLA attainment in [0, 1].
	PerMOutputTokens float64 `json:"per_m_output_tokens"`
	Attainment       float64 `json:"attainment"`
}

// CostRank ranks policies by cost among those that meet the SLO.
type CostRank struct {
	// Target is the SLA attainment a policy must keep, in (0, 1].
	Target float64 `json:"target"`
	// Met are the policies whose mean attainment reached Target, the
	// cheapest first; Missed the others, in the runs' order.
	Met    []CostRow `json:"met"`
	Missed []CostRow `json:"missed"`
}

// CheapestUnderSLO groups runs by policy and ranks, among the policies
// whose mean SLA attainment is at least target, the cheapest per million
// output tokens first. A policy without a price is left out of Met.
func CheapestUnderSLO(runs []*metrics.Summary, target float64) CostRank {
	r := CostRank{Target: target}
	var order []string
	by := map[string]*CostRow{}
	for _, s := range runs {
		p := s.Header.Policy
		row, ok := by[p]
		if !ok {
			row = &CostRow{Policy: p}
			by[p] = row
			order = append(order, p)
		}
		row.Runs++
		row.PerMOutputTokens += s.Cost.PerMOutputTokens
		row.Attainment += s.SLA.Attainment
	}
	for _, p := range order {
		row := *by[p]
		row.PerMOutputTokens /= float64(row.Runs)
		row.Attainment /= float64(row.Runs)
		if row.Attainment >= target && !math.IsNaN(row.PerMOutputTokens) {
			r.Met = append(r.Met, row)
		} else {
			r.Missed = append(r.Missed, row)
		}
	}
	slices.SortStableFunc(r.Met, func(a, b CostRow) int { return cmp.Compare(a.PerMOutputTokens, b.PerMOutputTokens) })
	return r
}

// Cheapest is the cheapest policy that met the SLO (ok false when none).
func (r CostRank) Cheapest() (CostRow, bool) {
	if len(r.Met) == 0 {
		return CostRow{}, false
	}
	return r.Met[0], true
}

// Text says in one sentence which policy is cheapest under the SLO, and
// by how much, or why none is.
func (r CostRank) Text() string {
	best, ok := r.Cheapest()
	if !ok {
		var why []string
		for _, m := range r.Missed {
			why = append(why, fmt.Sprintf("%s %s", m.Policy, costRowText(m)))
		}
		return fmt.Sprintf("Cheapest under the SLO: none: no priced policy kept %s SLA attainment (%s).",
			textfmt.Pct(r.Target), strings.Join(why, ", "))
	}
	s := fmt.Sprintf("Cheapest under the SLO (attainment ≥ %s): %s at $%s per million output tokens",
		textfmt.Pct(r.Target), best.Policy, fmtDollars(best.PerMOutputTokens))
	if len(r.Met) > 1 {
		next := r.Met[1]
		s += fmt.Sprintf(", %s %% less than %s ($%s)",
			strconv.FormatFloat(100*(1-best.PerMOutputTokens/next.PerMOutputTokens), 'g', 2, 64),
			next.Policy, fmtDollars(next.PerMOutputTokens))
	}
	switch n := len(r.Missed); {
	case n == 1:
		s += "; 1 policy missed the SLO or had no price"
	case n > 1:
		s += fmt.Sprintf("; %d policies missed the SLO or had no price", n)
	}
	return s + "."
}

// costRowText is a row's attainment and cost in words.
func costRowText(m CostRow) string {
	if math.IsNaN(m.PerMOutputTokens) {
		return fmt.Sprintf("at %s attainment, not priced", textfmt.Pct(m.Attainment))
	}
	return fmt.Sprintf("at %s attainment", textfmt.Pct(m.Attainment))
}
