package gateway

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// recorder stamps arrivals and writes what the gateway saw: the requests
// as a native trace, in arrival order, and every Result and Event to
// the results file. Safe for concurrent use.
type recorder struct {
	clock   *clock
	results *results.Writer
	m       *metrics

	mu   sync.Mutex
	seq  int64
	last time.Duration // the latest end of a recorded request
	reqs *bufio.Writer // nil: requests not recorded
	err  error         // the first write error of reqs, logged once
}

func newRecorder(c *clock, results *results.Writer, requests io.Writer, m *metrics) *recorder {
	r := &recorder{clock: c, results: results, m: m}
	if requests != nil {
		r.reqs = bufio.NewWriterSize(requests, 64<<10)
	}
	return r
}

// arrive stamps req's arrival and sequence number, names it "g<seq>"
// when its client did not, and writes it to the requests trace; it
// returns the sequence number (the Result's Seq).
func (r *recorder) arrive(req *traces.Request) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	req.Arrival = r.clock.begin()
	seq := r.seq
	r.seq++
	if req.ID == "" {
		req.ID = "g" + strconv.FormatInt(seq, 10)
	}
	if r.reqs == nil || r.err != nil {
		return seq
	}
	b, err := json.Marshal(req)
	if err == nil {
		b = append(b, '\n')
		_, err = r.reqs.Write(b)
	}
	if err != nil {
		r.err = err
		slog.Error("recording the requests failed; the results file goes on", "err", err)
	}
	return seq
}

// result writes one finished request and counts it.
func (r *recorder) result(res *results.Result) {
	r.m.outcome(res)
	r.mu.Lock()
	r.last = max(r.last, res.Done)
	r.mu.Unlock()
	if r.results != nil {
		_ = r.results.WriteResult(res)
	}
}

// events writes policy and fleet Events.
func (r *recorder) events(evs []results.Event) {
	if r.results == nil {
		return
	}
	for i := range evs {
		_ = r.results.WriteEvent(&evs[i])
	}
}

// lastDone is the latest end of a recorded request (0: none).
func (r *recorder) lastDone() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// flush writes out the buffered requests.
func (r *recorder) flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reqs == nil || r.err != nil {
		return r.err
	}
	r.err = r.reqs.Flush()
	return r.err
}
