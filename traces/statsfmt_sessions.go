package traces

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// writeSessionStats prints the sub-session, join and think-time rows of
// st, those it has.
func writeSessionStats(row func(k, format string, a ...any), st TraceStats) {
	if st.SubSessions > 0 || st.Joins > 0 {
		row("sub-sessions", "%s started by another session's request; %s requests wait for more than their previous one",
			thousands(int64(st.SubSessions)), thousands(int64(st.Joins)))
	}
	if d := st.Think; d != nil {
		row("think time", "mean %.1f s  p50 %.1f s  p90 %.1f s  p99 %.1f s  max %.1f s  (%s requests)",
			d.Mean, d.P50, d.P90, d.P99, d.Max, thousands(int64(d.Count)))
	}
}

// writeRecorded prints the recorded models and output types, when any.
func writeRecorded(row func(k, format string, a ...any), rec *RecordedStats) {
	if rec == nil {
		return
	}
	if len(rec.Models) > 0 {
		row("recorded models", "%s", countsText(rec.Models, rec.Requests))
	}
	text := "none recorded"
	if len(rec.OutputTypes) > 0 {
		text = countsText(rec.OutputTypes, rec.Requests)
	}
	if rec.NoOutputTypes > 0 {
		text += fmt.Sprintf("; %s record none", thousands(int64(rec.NoOutputTypes)))
	}
	row("output types", "%s (share of %s requests)", text, thousands(int64(rec.Requests)))
}

// countsText is "a 12 (60.0 %), b 8 (40.0 %)", most frequent first, each
// share of total.
func countsText(counts map[string]int, total int) string {
	keys := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %s (%.1f %%)", k, thousands(int64(counts[k])), 100*float64(counts[k])/float64(total))
	}
	return strings.Join(parts, ", ")
}
