package policies

import (
	"time"

	"github.com/tracebench/tracebench/traces"
)

// mbBatch is one dispatched batch, tracked until its last member is Done.
// size is its member count; running is the batch size Algorithm 7 feeds
// into b_avg: size in static mode, and in continuous mode the Backend's
// running batch after the top-up (in-flight + size), since that is what
// decodes together and what b_target bounds.
type mbBatch struct {
	stats     *mbStats
	ctrl      *mbController
	backend   int
	start     time.Duration
	size      int
	running   int
	remaining int
	prompt    int
	output    int
	maxOutput int
	tbtSum    time.Duration
	tbtN      int
}

// Release forms at most one batch per Backend, in index order (see
// multiBin). Every Release names its Backend.
func (m *multiBin) Release(now time.Duration, st State, c Capacity) []Release {
	var out []Release
	for _, b := range st.Backends {
		if m.held == 0 {
			break
		}
		out = m.serve(now, b, c, out)
	}
	if len(out) > 0 {
		m.events.touch()
	}
	return out
}

// serve forms b's batch, if b may take one, and appends its Releases.
func (m *multiBin) serve(now time.Duration, b Backend, c Capacity, out []Release) []Release {
	static := m.opt.mode == mbStatic
	if (static && b.InFlight > 0) || (c.Requests > 0 && b.InFlight >= c.Requests) {
		return out
	}
	lens := m.lens()
	bin := m.sel.pick(lens, false)
	if bin < 0 {
		return out
	}
	s, k, idx := m.state(bin)
	next := *k // Algorithm 2 moves the interval: commit only if a batch forms
	view := mbView{bMem: bMem(*s, &m.cfg, idx), bSLA: next.bSLA(&m.cfg)}
	view.bTarget = min(view.bMem, view.bSLA)
	n := min(view.bTarget, m.cfg.MaxCandidates)
	if !static {
		n -= b.InFlight
	}
	if c.Requests > 0 {
		n = min(n, c.Requests-b.InFlight)
	}
	if n <= 0 {
		return out
	}
	m.sel.pick(lens, true)
	*k = next
	m.views[bin] = view
	batch := m.take(bin, n, b, c)
	if len(batch) == 0 {
		return out
	}
	rec := &mbBatch{stats: s, ctrl: k, backend: b.Index, start: now, size: len(batch), running: len(batch), remaining: len(batch)}
	if !static {
		rec.running += b.InFlight
	}
	for _, r := range batch {
		m.batches[r] = rec
		out = append(out, Release{Req: r, Backend: b.Index})
	}
	m.inflight[b.Index] += len(batch)
	m.held -= len(batch)
	return out
}

// take is Algorithm 3's batch: the first n Requests of the bin, then the
// last dropped (back to the bin's front, FIFO kept) while the batch does
// not fit in memory (prompt + predicted output tokens plus the Backend's
// in-flight tokens above η) or in the token Capacity. A Backend with
// nothing in flight always takes the first member, so one oversized
// Request cannot block its bin for ever (the specification would return an empty
// batch every time).
func (m *multiBin) take(bin, n int, b Backend, c Capacity) []*traces.Request {
	q := &m.bins[bin]
	batch := make([]*traces.Request, 0, min(n, q.len()))
	for len(batch) < n && q.len() > 0 {
		batch = append(batch, q.pop())
	}
	eta := m.cfg.eta()
	mem, budget := float64(b.InFlightTokens), b.InFlightTokens
	keep := 0
	for i, r := range batch {
		mem += float64(r.InputTokens + r.PredictedOutput)
		budget += queueTokens(r)
		first := i == 0 && b.InFlight == 0
		if !first && (mem > eta || (c.Tokens > 0 && budget > c.Tokens)) {
			break
		}
		keep++
	}
	q.pushFront(batch[keep:])
	return batch[:keep]
}
