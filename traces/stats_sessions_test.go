package traces

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStatsSessions checks the session-structure statistics: a parent p
// (block size 4) spawns sub-agent p/a after its first turn and joins it
// at its second; q is another session resending p's first block.
func TestStatsSessions(t *testing.T) {
	s := time.Second
	reqs := []Request{
		{ID: "p#0", Session: "p", BlockIDs: []uint64{1, 2}, BlockSize: 4, InputTokens: 8, OutputTokens: 1,
			Recorded: &Recorded{Model: "big", OutputTypes: []string{"thinking", "tool_use"}}},
		{ID: "p/a#0", Session: "p/a", After: []string{"p#0"}, Think: 2 * s, ThinkKnown: true, BlockIDs: []uint64{7}, BlockSize: 4,
			InputTokens: 4, OutputTokens: 1, Recorded: &Recorded{Model: "small", OutputTypes: []string{"text"}}},
		{ID: "p/a#1", Session: "p/a", Think: 4 * s, ThinkKnown: true, BlockIDs: []uint64{7, 8}, BlockSize: 4,
			InputTokens: 8, OutputTokens: 1, Recorded: &Recorded{Model: "small"}},
		{ID: "p#1", Session: "p", Turn: 1, After: []string{"p#0", "p/a#1"}, Think: 6 * s, ThinkKnown: true,
			BlockIDs: []uint64{1, 2, 3}, BlockSize: 4, InputTokens: 12, OutputTokens: 1,
			Recorded: &Recorded{Model: "big", OutputTypes: []string{"text", "text"}}},
		{ID: "q#0", Session: "q", BlockIDs: []uint64{1, 9}, BlockSize: 4, InputTokens: 8, OutputTokens: 1},
	}
	st, err := Stats(NewSliceSource(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if st.SubSessions != 1 || st.Joins != 1 || st.Sessions != 3 {
		t.Errorf("sub-sessions %d joins %d sessions %d, want 1, 1, 3", st.SubSessions, st.Joins, st.Sessions)
	}
	wantThink := &DurationStats{Count: 3, Mean: 4, P50: 4, P90: 6, P99: 6, Max: 6}
	if d := cmp.Diff(wantThink, st.Think); d != "" {
		t.Errorf("think (-want +got):\n%s", d)
	}
	wantRec := &RecordedStats{Requests: 4, Models: map[string]int{"big": 2, "small": 2},
		OutputTypes: map[string]int{"thinking": 1, "tool_use": 1, "text": 2}, NoOutputTypes: 1}
	if d := cmp.Diff(wantRec, st.Recorded); d != "" {
		t.Errorf("recorded (-want +got):\n%s", d)
	}
	// Hits: p/a#1 block 7 (4 tokens, same session), p#1 blocks 1 2 (8,
	// same session), q#0 block 1 (4, another session's) of 40 tokens.
	if b := st.Blocks; b.HitTokens != 16 || b.SessionHitTokens != 12 || b.SessionSeen != 3 || b.SessionHitRate != 0.3 {
		t.Errorf("blocks %+v", b)
	}
	var out bytes.Buffer
	if err := WriteStats(&out, "t", st, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"sub-sessions             1 started by another session's request; 1 requests wait for more than their previous one",
		"think time               mean 4.0 s  p50 4.0 s  p90 6.0 s  p99 6.0 s  max 6.0 s  (3 requests)",
		"hit by session           30.0 % of prompt tokens from the same session's earlier requests, 10.0 % more only from other sessions'",
		"recorded models          big 2 (50.0 %), small 2 (50.0 %)",
		"output types             text 2 (50.0 %), thinking 1 (25.0 %), tool_use 1 (25.0 %); 1 record none (share of 4 requests)",
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestStatsNoSessionRows checks a trace without sessions, think times or
// recorded fields prints none of their rows.
func TestStatsNoSessionRows(t *testing.T) {
	st, err := Stats(NewSliceSource([]Request{{ID: "1", BlockIDs: []uint64{1}, InputTokens: 4, OutputTokens: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteStats(&out, "t", st, 0); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"sub-sessions", "think time", "hit by session", "recorded models", "output types"} {
		if strings.Contains(out.String(), row) {
			t.Errorf("row %q printed:\n%s", row, out.String())
		}
	}
}
