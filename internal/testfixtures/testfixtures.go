// Package testfixtures holds the fixtures and results-file readers that
// the tests of several packages share: a run whose figures are worked
// out by hand, a stop line's KV event figures, and helpers that open or
// read through a results file, failing the test on an error. Only tests
// import it.
package testfixtures

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/tracebench/tracebench/results"
)

const ms = time.Millisecond

// HandRun is five Results whose figures are worked out by hand in
// metrics.TestAccumulatorHandComputed, with their header.
func HandRun() (results.Header, []*results.Result) {
	h := results.Header{Policy: "hand", Router: "hand", Queue: "fcfs", Backends: []string{"b0", "b1"}}
	gaps := func(v time.Duration, n int64) []results.GapBin {
		return []results.GapBin{{V: int64(v / time.Microsecond), N: n}}
	}
	rs := []*results.Result{
		{User: "a", Backend: 0, Intended: 0, Released: 0, Sent: 1 * ms, FirstToken: 201 * ms, Done: 701 * ms,
			InputTokens: 100, OutputTokens: 11, PromptTokens: 100, CompletionTokens: 11, CachedTokens: 50,
			Chunks: 11, Gaps: gaps(50*ms, 10)},
		{User: "b", Backend: 1, Intended: 1000 * ms, Released: 1000 * ms, Sent: 1002 * ms, FirstToken: 1602 * ms,
			Done: 2602 * ms, InputTokens: 200, OutputTokens: 21, PromptTokens: 200, CompletionTokens: 21,
			Chunks: 11, Gaps: gaps(50*ms, 20), PredictedHitTokens: 100},
		{User: "a", Backend: 0, Intended: 2000 * ms, Released: 2000 * ms, Sent: 2001 * ms, FirstToken: 2101 * ms,
			Done: 4101 * ms, InputTokens: 100, OutputTokens: 11, PromptTokens: 100, CompletionTokens: 11,
			CachedTokens: 100, Chunks: 11, Gaps: gaps(200*ms, 10)},
		{User: "b", Backend: 1, Intended: 3000 * ms, Released: 3000 * ms, Sent: 3001 * ms, Done: 3011 * ms,
			InputTokens: 300, OutputTokens: 10, Status: 503, ErrClass: results.ErrHTTP5xx},
		{User: "a", Backend: 0, Intended: 9000 * ms, Released: 9000 * ms, Sent: 9001 * ms, FirstToken: 9301 * ms,
			Done: 10000 * ms, InputTokens: 50, OutputTokens: 1, PromptTokens: 50, CompletionTokens: 1, Chunks: 1},
	}
	return h, rs
}

// HandStop is the stop line of HandRun's finished run.
func HandStop() *results.Stop { return &results.Stop{Reason: "done", Elapsed: 10 * time.Second} }

// KVEventExtra is the KV event figures of a stop line's Extra for five
// backends: 0 subscribed with gaps, replays, losses and undecodable
// batches; 1 unreachable; 2 subscribed without a batch; 3 with only
// undecodable batches; 4 joined late (batches lost at start, orphan
// events). names are the figures every backend records and key the
// Extra key of backend b's figure (replay.KVStatNames and
// replay.KVExtraKey).
func KVEventExtra(names []string, key func(b int, name string) string) map[string]float64 {
	extra := map[string]float64{}
	for b, vals := range []map[string]float64{
		{"subscribed": 1, "batches": 10, "events": 40, "gaps": 2, "replayed": 3, "lost": 1, "malformed": 1,
			"unknown_tags": 2, "blocks": 7},
		{"unreachable": 1},
		{"subscribed": 1},
		{"subscribed": 1, "malformed": 5},
		{"subscribed": 1, "batches": 2, "events": 9, "lost_at_start": 3, "orphans": 6, "blocks": 4},
	} {
		for _, n := range names {
			extra[key(b, n)] = vals[n]
		}
	}
	return extra
}

// OpenResults opens the results file at path, read up to its run header;
// the file is closed when the test ends.
func OpenResults(t testing.TB, path string) *results.Reader {
	t.Helper()
	rd, c, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return rd
}

// ReadResults reads the results file at path to its end and returns the
// Reader (its Header, Stop and Truncated set), the Results and the
// Events, in file order.
func ReadResults(t testing.TB, path string) (*results.Reader, []*results.Result, []*results.Event) {
	t.Helper()
	rd, c, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rs []*results.Result
	var evs []*results.Event
	for {
		r, ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rd, rs, evs
		}
		if err != nil {
			t.Fatal(err)
		}
		if r != nil {
			rs = append(rs, r)
		}
		if ev != nil {
			evs = append(evs, ev)
		}
	}
}

// WriteResults writes a results file at path holding h, rs and a "done"
// stop line, failing the test on an error.
func WriteResults(t testing.TB, path string, h results.Header, rs []*results.Result) {
	t.Helper()
	w, err := results.Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := w.WriteResult(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(results.Stop{Reason: "done"}); err != nil {
		t.Fatal(err)
	}
}
