package calibrate

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/results"
)

// TestReadSentFollowsServerSlots: a request the server said it ran on a
// slot (llama.cpp's native API) is replayed on that slot; one that named
// its slot keeps it as named (ranOn unset), and one with no slot lets the
// replay's engine choose.
func TestReadSentFollowsServerSlots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	slot := func(i int) *int { return &i }
	var rs []*results.Result
	for i, s := range []*int{slot(2), slot(1), nil} {
		at := time.Duration(i+1) * time.Second
		rs = append(rs, &results.Result{Seq: int64(i), ID: string(rune('a' + i)), Sent: at, FirstToken: at + 10*time.Millisecond,
			Done: at + 50*time.Millisecond, Status: 200, OutputTokens: 4, PromptTokens: 3, Slot: s})
	}
	testfixtures.WriteResults(t, path, results.Header{Version: results.Version, Policy: "round-robin"}, rs)
	ids := map[string]Prompt{"a": {Tokens: []int{1, 2, 3}}, "b": {Tokens: []int{4, 5, 6}, Slot: slot(1)}, "c": {Tokens: []int{7, 8, 9}}}
	var sets []*replaySet
	if _, err := readSent(path, 0, 0, ids, &sets); err != nil {
		t.Fatal(err)
	}
	if len(sets) != 1 || len(sets[0].reqs) != 3 {
		t.Fatalf("read %d sets, want one of 3 requests", len(sets))
	}
	want := map[string][2]int{"a": {-1, 2}, "b": {1, -1}, "c": {-1, -1}} // {named, ran on}
	for _, q := range sets[0].reqs {
		got := [2]int{-1, -1}
		if q.slot != nil {
			got[0] = *q.slot
		}
		if q.ranOn != nil {
			got[1] = *q.ranOn
		}
		if got != want[q.id] {
			t.Errorf("%s: named %d, ran on %d; want %v", q.id, got[0], got[1], want[q.id])
		}
	}
}
