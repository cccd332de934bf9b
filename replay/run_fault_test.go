package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/internal/fakesse"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestRunMisbehavingBackends replays over loopback to a fleet in which
// every backend misbehaves in its own way (one per SSE case, HTTP status,
// timeout and refused connection). Each Request must get its backend's
// error class, the Run must complete, and the counts must add up: sent =
// succeeded + failed, in the results file and in the live Counters.
func TestRunMisbehavingBackends(t *testing.T) {
	backends := []struct {
		name      string
		handler   http.HandlerFunc // nil: nothing listens (refused)
		wantClass string
	}{
		{"well-behaved", fakesse.SSE(fakesse.RoleChunk, fakesse.TokChunk, fakesse.TokChunk, fakesse.FinChunk, fakesse.UsageChunk, fakesse.DoneChunk), ""},
		{"data lines split across reads", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, b := range []byte(fakesse.TokChunk + fakesse.TokChunk + fakesse.DoneChunk) {
				_, _ = w.Write([]byte{b})
				w.(http.Flusher).Flush()
			}
		}, ""},
		{"comments, keep-alives, multi-line events", fakesse.SSE(": ping\n\n", "\r\n", "data: {\"choices\":\r\n",
			"data: [{\"text\":\"a\"}]}\r\n\r\n", ": keep-alive\n", fakesse.TokChunk, fakesse.DoneChunk), ""},
		{"usage-only final chunk, no [DONE]", fakesse.SSE(fakesse.TokChunk, fakesse.TokChunk, fakesse.FinChunk, fakesse.UsageChunk), ""},
		{"429", fakesse.Status(http.StatusTooManyRequests, `{"message":"rate limited"}`), results.ErrHTTP4xx},
		{"500", fakesse.Status(http.StatusInternalServerError, "boom"), results.ErrHTTP5xx},
		{"503", fakesse.Status(http.StatusServiceUnavailable, `{"error":"overloaded"}`), results.ErrHTTP5xx},
		{"error frame", fakesse.SSE(fakesse.TokChunk, `data: {"error":{"message":"engine dead","code":500}}`+"\n\n"), results.ErrStreamError},
		{"missing [DONE] and finish", fakesse.SSE(fakesse.TokChunk, fakesse.TokChunk), results.ErrStreamBroken},
		{"cut mid-stream", fakesse.CutAfter(fakesse.TokChunk, `data: {"choices":[{"te`), results.ErrStreamBroken},
		{"bad JSON", fakesse.SSE(fakesse.TokChunk, "data: {not json\n\n"), results.ErrBadPayload},
		{"no first byte", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, results.ErrTimeout},
		{"stalls mid-stream", fakesse.StallAfter(fakesse.TokChunk), results.ErrTimeout},
		{"refused", nil, results.ErrConnect},
	}
	urls := make([]string, len(backends))
	for i, b := range backends {
		if b.handler == nil {
			urls[i] = "http://" + fakesse.ClosedAddr(t)
			continue
		}
		urls[i] = fakesse.RawServer(t, b.handler).URL
	}
	const rounds = 3
	n := rounds * len(backends)
	reqs := make([]traces.Request, n)
	for i := range reqs {
		reqs[i] = traces.Request{ID: fmt.Sprint(i), Arrival: time.Duration(i) * time.Millisecond,
			Prompt: "hello", InputTokens: 1, OutputTokens: 2}
	}
	r, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 1)))
	q, _ := policies.NewQueue("fcfs", nil, nil)
	path := filepath.Join(t.TempDir(), "results.jsonl")
	w, err := results.Create(path, results.Header{Version: results.Version, Policy: "round-robin"})
	if err != nil {
		t.Fatal(err)
	}
	// Timeouts far above a loopback answer, so only the stalling
	// backends reach them.
	c := client.New(client.Options{Stream: true, Model: "m", ConnectTimeout: time.Second,
		FirstByteTimeout: time.Second, IdleTimeout: time.Second})
	defer c.Close()
	counters := &Counters{}
	stop, err := Run(context.Background(), Options{Common: Common{Source: traces.NewSliceSource(reqs),
		Router: r, Queue: q, Results: w, Counters: counters},
		Backends: urls, Client: c, Grace: time.Second})
	if err != nil || stop.Reason != "done" {
		t.Fatalf("Run: stop %q, err %v", stop.Reason, err)
	}
	if err := w.Close(stop); err != nil {
		t.Fatal(err)
	}

	rd := mustOpenResults(t, path)
	perBackend := make([]int, len(backends))
	ok, failed := 0, 0
	for {
		res, _, err := rd.Next()
		if err != nil {
			break
		}
		if res == nil {
			continue
		}
		b := backends[res.Backend]
		perBackend[res.Backend]++
		if res.ErrClass != b.wantClass {
			t.Errorf("backend %q: request %s got class %q (%s), want %q", b.name, res.ID, res.ErrClass, res.Err, b.wantClass)
		}
		if res.OK() {
			ok++
		} else {
			failed++
		}
	}
	for i, k := range perBackend {
		if k != rounds {
			t.Errorf("backend %q served %d requests, want %d", backends[i].name, k, rounds)
		}
	}
	if ok+failed != n || ok != 4*rounds {
		t.Errorf("results: %d succeeded + %d failed, want %d sent (%d succeeded)", ok, failed, n, 4*rounds)
	}
	if s, d, e := counters.Sent.Load(), counters.Done.Load(), counters.Errors.Load(); s != int64(n) || d != s ||
		e != int64(failed) || counters.InFlight.Load() != 0 {
		t.Errorf("counters: sent %d, done %d, errors %d, in flight %d; want %d, %d, %d, 0", s, d, e,
			counters.InFlight.Load(), n, n, failed)
	}
}
