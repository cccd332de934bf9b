package calibrate

import (
	"fmt"
	"strconv"
	"strings"
)

// priceFromLogs fixes the save terms at the cost the servers' logs
// measured (SaveCostOf) when logs are given and price one; otherwise
// the terms stay fitted and a warning says why.
func (res *Result) priceFromLogs(logs []SaveLog, fixed *[numCols]float64) {
	if len(logs) == 0 {
		return
	}
	c, err := SaveCostOf(logs)
	if err != nil {
		why := err.Error()
		if updates(logs) == 0 {
			why = "no log shows a prompt-cache update: a server started with --cache-ram 0 saves nothing, " +
				"or these are not llama-server's logs from its start"
		}
		res.Warnings = append(res.Warnings, "the servers' logs do not price the slot saves ("+why+
			"): fitted as equations' terms instead")
		return
	}
	res.logged = &c
	fixed[colSave], fixed[colSaveTok] = c.Fixed, c.PerToken
}

// compareSaves says what the servers' logs measured and, when the saves
// were placed, how many the replay placed on each server against its
// log's count, warning where they differ by more than a tenth (and 2).
func (res *Result) compareSaves(logs []SaveLog, placed bool) {
	if len(logs) == 0 {
		return
	}
	var b strings.Builder
	if res.logged != nil {
		b.WriteString("slot saves priced from the servers' logs: " + res.logged.String())
	} else {
		b.WriteString("slot saves in the servers' logs")
	}
	if !placed || res.placed == nil {
		res.Saves = b.String()
		return
	}
	b.WriteString("; saves per server, placed by the replay / in its log:")
	for i, l := range logs {
		got, logged := "n/a", l.Saves()
		if i < len(res.placed) {
			got = strconv.Itoa(res.placed[i])
			if d := res.placed[i] - logged; abs(d) > max(2, logged/10) {
				res.Warnings = append(res.Warnings, fmt.Sprintf("the replay placed %d slot saves on server %d where its log (%s) "+
					"shows %d: its slot choices drift from the server's, so the save terms fall on other requests",
					res.placed[i], i+1, l.Name, logged))
			}
		}
		fmt.Fprintf(&b, " %s / %d", got, logged)
	}
	if len(logs) != len(res.placed) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d server logs for %d servers: each log is compared with the "+
			"server in its place (the order of --target, or of the results' backends)", len(logs), len(res.placed)))
	}
	res.Saves = b.String()
}

// loggedTerms are the engine replay's terms the servers' logs priced
// (kept, not searched); nil without logs.
func (res *Result) loggedTerms() []int {
	if res.logged == nil {
		return nil
	}
	return []int{termSaveFixed, termSavePerToken}
}

// updates counts the logs' prompt-cache updates.
func updates(logs []SaveLog) int {
	n := 0
	for _, l := range logs {
		n += len(l.Updates)
	}
	return n
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
