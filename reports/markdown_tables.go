package reports

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// backendsIntro heads the backends section.
const backendsIntro = "## Backends\n\n" +
	"How each run spread its requests. Share is the backend's fraction of the run's requests; " +
	"an even spread over n backends gives 1/n each. Hit gap is the router's predicted hit rate minus the " +
	"server's, in points: how far the router's view of that backend's cache was off.\n\n"

// backendsHead is the per-Backend table's header.
var backendsHead = []string{"#", "backend", "requests", "share", "errors", "in tokens", "out tokens",
	"TTFT p50 ms", "TTFT p99 ms", "hit server", "hit scraped", "hit predicted", "hit gap pts", "KV max"}

// writeBackends writes one per-Backend table per run.
func writeBackends(w io.Writer, runs []*metrics.Summary) {
	fmt.Fprint(w, backendsIntro)
	perRunTables(w, runs, len(runs) > 1, backendsHead, "ll", backendRows)
}

// backendRows are one run's per-Backend table rows.
func backendRows(s *metrics.Summary) [][]string {
	var rows [][]string
	for _, b := range s.Backends {
		rows = append(rows, []string{fmt.Sprintf("%d", b.Index), "`" + b.URL + "`", textfmt.Count(b.Requests),
			textfmt.Pct(metrics.Ratio(float64(b.Requests), float64(s.Requests))), textfmt.Count(b.Errors),
			textfmt.Count(b.InputTokens), textfmt.Count(b.OutputTokens), textfmt.Num(b.TTFTP50), textfmt.Num(b.TTFTP99),
			textfmt.Pct(b.HitRate), textfmt.Pct(b.ScrapedHitRate), textfmt.Pct(b.PredictedHitRate),
			textfmt.GapPts(b.PredictedHitRate, b.HitRate), textfmt.Pct(b.KVUsageMax)})
	}
	return rows
}

// writeUsers writes the per-user table: the largest users by demand and
// the worst-served ones (lowest SLA attainment in any run), one column
// group per run.
func writeUsers(w io.Writer, runs []*metrics.Summary, o RenderOptions) {
	if len(runs) == 0 || len(runs[0].Users) == 0 {
		return
	}
	fmt.Fprint(w, "## Users\n\n")
	top, worst := pickUsers(runs, o.TopUsers, o.WorstUsers)
	fmt.Fprintf(w, "The %d users with the largest demand", len(top))
	if len(worst) > 0 {
		fmt.Fprintf(w, ", then the %d worst-served of the others (lowest SLA attainment in any run)", len(worst))
	}
	fmt.Fprint(w, ". Each run's cell is SLA attainment / TTFT p99 in ms / service received as a share of the user's demand.\n\n")
	head := []string{"user", "shown as", "requests", "demand share"}
	for _, s := range runs {
		head = append(head, mdEscape(s.Name()))
	}
	var rows [][]string
	for i, u := range append(top, worst...) {
		why := "top demand"
		if i >= len(top) {
			why = "worst-served"
		}
		ref := lookupUser(runs[0], u)
		row := []string{mdEscape(userLabel(u)), why, textfmt.Count(ref.Requests), textfmt.Share(ref.DemandShare)}
		for _, s := range runs {
			x := lookupUser(s, u)
			row = append(row, fmt.Sprintf("%s / %s / %s", textfmt.Pct(x.Attainment), textfmt.Num(x.TTFTP99),
				textfmt.Pct(metrics.Ratio(x.Service, x.Demand))))
		}
		rows = append(rows, row)
	}
	mdTable(w, head, "ll", rows)
}

func userLabel(u string) string {
	if u == "" {
		return "(no user)"
	}
	return u
}

// pickUsers returns the top users by demand in the first run and the
// worst-served others (lowest attainment across runs, then lowest name).
func pickUsers(runs []*metrics.Summary, nTop, nWorst int) (top, worst []string) {
	shown := map[string]bool{}
	for _, u := range runs[0].Users[:min(nTop, len(runs[0].Users))] {
		top = append(top, u.User)
		shown[u.User] = true
	}
	type cand struct {
		user string
		att  float64
	}
	worstOf := map[string]float64{}
	for _, s := range runs {
		for _, u := range s.Users {
			if shown[u.User] || math.IsNaN(u.Attainment) {
				continue
			}
			if v, ok := worstOf[u.User]; !ok || u.Attainment < v {
				worstOf[u.User] = u.Attainment
			}
		}
	}
	var c []cand
	for u, a := range worstOf {
		c = append(c, cand{u, a})
	}
	slices.SortFunc(c, func(x, y cand) int { return cmp.Or(cmp.Compare(x.att, y.att), cmp.Compare(x.user, y.user)) })
	for _, x := range c[:min(nWorst, len(c))] {
		worst = append(worst, x.user)
	}
	return top, worst
}

// lookupUser returns the user's row in s (an empty row with NaN figures
// when the user sent nothing in that run).
func lookupUser(s *metrics.Summary, user string) metrics.UserSummary {
	for _, u := range s.Users {
		if u.User == user {
			return u
		}
	}
	return metrics.UserSummary{User: user, Attainment: math.NaN(), TTFTP99: math.NaN(), DemandShare: math.NaN()}
}
