package reports

import (
	"fmt"
	"io"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// writePD writes the prefill/decode section of runs that disaggregated.
func writePD(w io.Writer, runs []*metrics.Summary) {
	var rows, roles [][]string
	for _, s := range runs {
		p := s.PD
		if p == nil {
			continue
		}
		rows = append(rows, []string{mdEscape(s.Name()), textfmt.Count(p.Disaggregated), textfmt.Count(p.DecodeOnly),
			textfmt.Count(p.Fallbacks), textfmt.ErrorList(p.PrefillErrors), distPair(p.Prefill), distPair(p.Transfer),
			distPair(p.FirstDecode), textfmt.Count(p.SplitUnknown)})
		for _, r := range p.Roles {
			roles = append(roles, []string{mdEscape(s.Name()), r.Role, fmt.Sprint(r.Backends), textfmt.Count(r.Phases), textfmt.Num(r.Occupancy)})
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprint(w, "## Prefill/decode disaggregation\n\n")
	fmt.Fprint(w, "TTFT of the requests sent to a prefill backend first, split into the prefill answer, the KV "+
		"transfer and the decode's first token (p50 / p99 ms; n/a where the servers did not report the split). "+
		"Fallbacks were sent to their decode backend alone after their prefill failed.\n\n")
	mdTable(w, []string{"run", "disaggregated", "decode only", "fallbacks", "prefill errors", "prefill ms",
		"transfer ms", "first decode ms", "split unknown"}, "l", rows)
	fmt.Fprint(w, "Load per role: phases served and occupancy, the mean number of phases in flight per backend.\n\n")
	mdTable(w, []string{"run", "role", "backends", "phases", "occupancy"}, "ll", roles)
}

// distPair formats a Dist as "p50 / p99" (n/a when empty).
func distPair(d metrics.Dist) string {
	if d.Count == 0 {
		return textfmt.NA
	}
	return textfmt.Num(d.P50) + " / " + textfmt.Num(d.P99)
}
