package metrics

import (
	"fmt"
	"strings"
	"time"
)

// SLOText is an SLO in words: its bounds, or that it has none.
func SLOText(s SLO) string {
	var parts []string
	for _, b := range []struct {
		n string
		d time.Duration
	}{{"TTFT", s.TTFT}, {"TTFOT", s.TTFOT}, {"TPOT", s.TPOT}, {"E2E", s.E2E}} {
		if b.d > 0 {
			parts = append(parts, fmt.Sprintf("%s ≤ %s", b.n, b.d))
		}
	}
	if len(parts) == 0 {
		return "none (every successful request meets it)"
	}
	out := strings.Join(parts, ", ")
	if len(s.PerUser) > 0 {
		out += fmt.Sprintf(" (%d user(s) with their own bounds)", len(s.PerUser))
	}
	return out
}
