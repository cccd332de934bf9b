package reports

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
)

// sessionsIntro explains the sessions tables (markdown and HTML).
const sessionsIntro = "What the users lived through. Session time runs from a session's first arrival to its last " +
	"answer; fleet time is the sum of its turns' end-to-end latencies and think time the pauses between turns " +
	"(reading, typing, an agent's tools). Fleet share is Σ fleet / Σ (fleet + think): the share of the users' " +
	"time the fleet added. Early turns were sent before the turn they follow had finished: open-loop users who " +
	"ask before the answer arrives; closed-loop replays have none. Failed turns, sessions a failure ended and " +
	"turns skipped because their session had ended come from the run's stop line (n/a open-loop)."

// sessionRunCells are one run's cells of the sessions table.
func sessionRunCells(s *metrics.SessionSummary) []string {
	return []string{strconv.Itoa(s.Sessions), strconv.Itoa(s.Completed), textfmt.Num(s.TurnsMean),
		fmtSec(s.Time.P50), fmtSec(s.Time.P90), fmtSec(s.Fleet.P50), fmtSec(s.Think.P50), textfmt.Pct(s.FleetShare),
		fmt.Sprintf("%d of %d", s.Early, s.FollowUps), fmtKnown(s.FailedTurns), fmtKnown(s.EndedByFailure),
		fmtKnown(s.Skipped)}
}

// fmtKnown formats a count, "n/a" when unknown (negative).
func fmtKnown(n int) string {
	if n < 0 {
		return "n/a"
	}
	return strconv.Itoa(n)
}

// sessionHead is the sessions table's header after the policy column.
var sessionHead = []string{"sessions", "completed", "turns mean", "session p50 s", "session p90 s",
	"fleet p50 s", "think p50 s", "fleet share", "early turns", "failed turns", "ended by failure", "skipped turns"}

// fmtSec formats milliseconds as seconds ("n/a" for NaN).
func fmtSec(ms float64) string {
	if math.IsNaN(ms) {
		return "n/a"
	}
	return textfmt.Num(ms / 1e3)
}

// writeSessions writes the sessions table and TTFT by turn index, when
// some run had sessions.
func writeSessions(w io.Writer, runs []*metrics.Summary) {
	if !anySessions(runs) {
		return
	}
	fmt.Fprint(w, "## Sessions\n\n", sessionsIntro, "\n\n")
	var rows [][]string
	for _, s := range runs {
		if s.Sessions != nil {
			rows = append(rows, append([]string{mdEscape(s.Name())}, sessionRunCells(s.Sessions)...))
		}
	}
	mdTable(w, append([]string{"policy"}, sessionHead...), "l", rows)
	fmt.Fprint(w, "### TTFT by turn\n\nTTFT p50 / p90 in ms of the successful turns of each index; a later "+
		"turn carries a longer history, so the prefix cache matters more.\n\n")
	head, trows := turnRows(runs)
	mdTable(w, head, "l", trows)
}

// anySessions reports whether some run had sessions.
func anySessions(runs []*metrics.Summary) bool {
	for _, s := range runs {
		if s.Sessions != nil {
			return true
		}
	}
	return false
}

// turnRows are the TTFT-by-turn table: one row per turn index, one
// column per run.
func turnRows(runs []*metrics.Summary) ([]string, [][]string) {
	head := []string{"turn"}
	n := 0
	for _, s := range runs {
		head = append(head, mdEscape(s.Name()))
		if s.Sessions != nil {
			n = max(n, len(s.Sessions.ByTurn))
		}
	}
	var rows [][]string
	for i := range n {
		row := []string{""}
		for _, s := range runs {
			cell := "n/a"
			if s.Sessions != nil && i < len(s.Sessions.ByTurn) {
				t := s.Sessions.ByTurn[i]
				row[0] = t.Turn
				cell = textfmt.Num(t.TTFT.P50) + " / " + textfmt.Num(t.TTFT.P90)
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	return head, rows
}

// sessionsSection is the HTML report's sessions section (nil without
// sessions).
func sessionsSection(runs []*metrics.Summary) []html.Section {
	if !anySessions(runs) {
		return nil
	}
	t := &html.Table{Head: append([]string{"policy"}, sessionHead...)}
	for _, s := range runs {
		if s.Sessions == nil {
			continue
		}
		row := []html.Cell{html.TextCell(s.Name())}
		for _, c := range sessionRunCells(s.Sessions) {
			row = append(row, html.TextCell(c))
		}
		t.Rows = append(t.Rows, row)
	}
	head, rows := turnRows(runs)
	bt := &html.Table{Head: head, Note: "TTFT p50 / p90 in ms by turn index."}
	for _, r := range rows {
		var cells []html.Cell
		for _, c := range r {
			cells = append(cells, html.TextCell(c))
		}
		bt.Rows = append(bt.Rows, cells)
	}
	return []html.Section{{ID: "sessions", Title: "Sessions", Text: sessionsIntro, Table: t},
		{ID: "ttft-by-turn", Title: "TTFT by turn", Table: bt}}
}

// sessionFields are the summary CSV's session columns.
func sessionFields() []csvField {
	f := func(name string, get func(*metrics.SessionSummary) float64) csvField {
		return csvField{name, func(s *metrics.Summary) string {
			if s.Sessions == nil {
				return ""
			}
			return num(get(s.Sessions))
		}}
	}
	return []csvField{
		f("sessions", func(s *metrics.SessionSummary) float64 { return float64(s.Sessions) }),
		f("sessions_completed", func(s *metrics.SessionSummary) float64 { return float64(s.Completed) }),
		f("session_turns_mean", func(s *metrics.SessionSummary) float64 { return s.TurnsMean }),
		f("session_time_p50_ms", func(s *metrics.SessionSummary) float64 { return s.Time.P50 }),
		f("session_time_p90_ms", func(s *metrics.SessionSummary) float64 { return s.Time.P90 }),
		f("session_fleet_p50_ms", func(s *metrics.SessionSummary) float64 { return s.Fleet.P50 }),
		f("session_think_p50_ms", func(s *metrics.SessionSummary) float64 { return s.Think.P50 }),
		f("session_fleet_share", func(s *metrics.SessionSummary) float64 { return s.FleetShare }),
		f("session_early_turns", func(s *metrics.SessionSummary) float64 { return float64(s.Early) }),
		f("session_follow_ups", func(s *metrics.SessionSummary) float64 { return float64(s.FollowUps) }),
		f("session_failed_turns", knownCount(func(s *metrics.SessionSummary) int { return s.FailedTurns })),
		f("sessions_ended_by_failure", knownCount(func(s *metrics.SessionSummary) int { return s.EndedByFailure })),
		f("session_skipped_turns", knownCount(func(s *metrics.SessionSummary) int { return s.Skipped })),
		{"ttft_p50_ms_by_turn", func(s *metrics.Summary) string {
			if s.Sessions == nil {
				return ""
			}
			cells := make([]string, 0, len(s.Sessions.ByTurn))
			for _, t := range s.Sessions.ByTurn {
				cells = append(cells, t.Turn+":"+num(t.TTFT.P50))
			}
			return strings.Join(cells, " ")
		}},
	}
}

// knownCount turns a count getter into a figure getter, NaN when unknown.
func knownCount(get func(*metrics.SessionSummary) int) func(*metrics.SessionSummary) float64 {
	return func(s *metrics.SessionSummary) float64 {
		if n := get(s); n >= 0 {
			return float64(n)
		}
		return math.NaN()
	}
}

// WriteSessionsCSV writes sessions.csv: one row per session of each run
// (policy, session, turns, failed turns, session time, fleet time and
// think time in ms).
func WriteSessionsCSV(w io.Writer, runs []*metrics.Summary) error {
	head := []string{"policy", "session", "turns", "failed_turns", "session_time_ms", "fleet_time_ms", "think_time_ms"}
	ms := func(d time.Duration) string { return num(float64(d) / 1e6) }
	return writeCSV(w, "sessions.csv", head, func(write func([]string)) {
		for _, s := range runs {
			for _, r := range s.SessionRows() {
				write([]string{s.Name(), r.Session, strconv.Itoa(r.Turns), strconv.Itoa(r.Failed), ms(r.Time),
					ms(r.Fleet), ms(r.Think)})
			}
		}
	})
}
