package traces

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteStats prints st as an aligned two-column table: name heads it
// (the file and format, or the workload), and skipped, when > 0, reports
// the malformed records left out.
func WriteStats(w io.Writer, name string, st TraceStats, skipped int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, a...)) }
	row("trace", "%s", name)
	row("requests", "%s", thousands(int64(st.Requests)))
	row("span", "%s", spanText(st))
	row("rate", "%.2f req/s", st.Rate)
	row("input tokens", "%s", lengthText(st.Input))
	row("output tokens", "%s", lengthText(st.Output))
	row("users", "%s", thousands(int64(st.Users)))
	if st.Sessions > 0 {
		row("sessions", "%s (at most %d turns)", thousands(int64(st.Sessions)), st.MaxTurns)
	} else {
		row("sessions", "0")
	}
	writeSessionStats(row, st)
	if b := st.Blocks; b != nil {
		row("blocks", "%s in %s requests; %.1f %% seen before, %.1f %% of those in the leading prefix",
			thousands(b.Blocks), thousands(int64(b.Requests)), 100*b.SeenShare, 100*b.LeadingShare)
		row("infinite-cache hit rate", "%.1f %% of prompt tokens (%s of %s)", 100*b.HitRate,
			thousands(b.HitTokens), thousands(b.InputTokens))
		if st.Sessions > 0 {
			row("hit by session", "%.1f %% of prompt tokens from the same session's earlier requests, %.1f %% more only from other sessions'",
				100*b.SessionHitRate, 100*(b.HitRate-b.SessionHitRate))
		}
	}
	writeRecorded(row, st.Recorded)
	if skipped > 0 {
		row("skipped", "%s", MalformedText(skipped))
	}
	return tw.Flush()
}

// MalformedText is "1 malformed record" or "N malformed records".
func MalformedText(n int) string {
	if n == 1 {
		return "1 malformed record"
	}
	return thousands(int64(n)) + " malformed records"
}

// spanText gives the span in minutes (and seconds) or seconds.
func spanText(st TraceStats) string {
	s := st.Span.Seconds()
	if s >= 120 {
		return fmt.Sprintf("%.1f min (%.1f s)", s/60, s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// lengthText is "mean M  p50 A  p90 B  p99 C  max D".
func lengthText(l LengthStats) string {
	return fmt.Sprintf("mean %s  p50 %s  p90 %s  p99 %s  max %s", meanText(l.Mean),
		thousands(int64(l.P50)), thousands(int64(l.P90)), thousands(int64(l.P99)), thousands(int64(l.Max)))
}

// meanText prints a mean with one decimal and thousands separators.
func meanText(m float64) string {
	whole := int64(m)
	frac := int64((m-float64(whole))*10 + 0.5)
	if frac == 10 {
		whole, frac = whole+1, 0
	}
	return thousands(whole) + "." + strconv.FormatInt(frac, 10)
}

// thousands formats n with comma separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
