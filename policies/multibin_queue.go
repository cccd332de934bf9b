package policies

import (
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// multiBin is the multi-bin dynamic batching Queue (Algorithms 1–7 of
// a multi-bin dynamic batching specification built on Guldogan et al.,
// arXiv:2412.04504).
//
// Arrive predicts the output length and files the Request in a bin
// (Algorithm 4). Until the bins are known (no boundaries parameter and
// fewer than warmup_requests predicted lengths seen) every Request waits
// in one warm-up bin with its own global statistics and controller (the
// specification's bin −1); then Algorithm 6 computes equal-mass edges from the
// window and the waiting Requests are re-filed in FIFO order.
//
// Release serves Backends in index order. In static mode a Backend with no
// Request in flight takes one batch; in continuous mode a Backend takes
// b_target − in-flight more. Either way Algorithm 5 picks the bin, and
// Algorithm 3 sizes the batch: b_target = min(b_mem, b_SLA), at most
// max_candidates and the request Capacity, then members are dropped from
// the end while the batch's prompt + predicted output tokens (plus the
// Backend's in-flight tokens) exceed η or the token Capacity. Each batch
// goes to its Backend together (Release.Backend).
//
// Done gathers the members of a batch; when the last one finishes,
// Algorithm 7 updates the bin's statistics and controller with the mean
// measured decode TBT of its members (the v2 model; the legacy service
// time / longest output when no member has one). In continuous mode the
// batch size fed to b_avg is the Backend's running batch after the top-up,
// and N_decode is what the Queue still has in flight on that Backend.
//
// Deviations from the specification, all where it leaves a case open: a length
// below the first bin goes to bin 0 (binOf); an idle Backend always takes
// a batch's first member even if it exceeds η (take); Algorithm 2 runs
// only when a batch is actually formed, since the replay polls Release far
// more often than Backends free up.
type multiBin struct {
	cfg       mbConfig
	opt       mbOptions
	bounds    []BinRange // nil during warm-up
	bins      []fifo     // one warm-up bin, then K
	stats     []mbStats
	ctrl      []mbController
	warmStats mbStats
	warmCtrl  mbController
	warmLens  []int
	sel       binSelector
	views     []mbView
	batches   map[*traces.Request]*mbBatch
	inflight  map[int]int
	held      int
	events    stateThrottle
}

// mbView is the last sizing of a bin, for state events.
type mbView struct{ bTarget, bMem, bSLA int }

// newMultiBin builds the Queue from resolved parameters.
func newMultiBin(p Params, rng *rand.Rand) (*multiBin, error) {
	c, o, err := parseMultiBin(p)
	if err != nil {
		return nil, err
	}
	if rng == nil {
		rng = rand.New(rand.NewPCG(1, 2))
	}
	o.pred.rng = rng
	m := &multiBin{cfg: c, opt: o, warmCtrl: newController(&c), sel: binSelector{longest: o.selection == mbLongestQueue},
		batches: map[*traces.Request]*mbBatch{}, inflight: map[int]int{}, events: stateThrottle{interval: o.eventInterval}}
	m.bins = make([]fifo, 1)
	switch {
	case len(o.edges) > 0:
		m.setBounds(boundariesFromEdges(o.edges))
	case o.k == 1:
		m.setBounds(EqualMassBoundaries([]int{0}, 1))
	}
	m.views = make([]mbView, len(m.bins))
	m.events.touch()
	return m, nil
}

func (m *multiBin) Name() string { return "multi-bin" }

func (m *multiBin) Len() int { return m.held }

// warm reports whether the bins are not known yet.
func (m *multiBin) warm() bool { return m.bounds == nil }

// Arrive predicts req's output length and files it in its bin.
func (m *multiBin) Arrive(_ time.Duration, req *traces.Request) error {
	m.opt.pred.predict(req, m.bounds)
	m.held++
	if !m.warm() {
		m.bins[binOf(req.PredictedOutput, m.bounds)].push(req)
		return nil
	}
	m.bins[0].push(req)
	m.warmLens = append(m.warmLens, req.PredictedOutput)
	if len(m.warmLens) >= m.opt.warmup {
		m.setBounds(EqualMassBoundaries(m.warmLens, m.opt.k))
		m.warmLens = nil
	}
	return nil
}

// setBounds installs the bins and re-files the waiting Requests.
func (m *multiBin) setBounds(b []BinRange) {
	waiting := m.bins[0].drain()
	m.bounds = b
	m.bins = make([]fifo, len(b))
	m.stats = make([]mbStats, len(b))
	m.ctrl = make([]mbController, len(b))
	for i := range m.ctrl {
		m.ctrl[i] = newController(&m.cfg)
	}
	m.views = make([]mbView, len(b))
	m.sel.cursor = 0
	for _, r := range waiting {
		if m.opt.pred.kind == predBucket {
			m.opt.pred.predict(r, m.bounds)
		}
		m.bins[binOf(r.PredictedOutput, m.bounds)].push(r)
	}
	m.events.touch()
}

// state returns bin i's statistics and controller (the warm-up ones, the
// specification's bin −1, before the bins are known) and the Algorithm 1 bin index.
func (m *multiBin) state(i int) (*mbStats, *mbController, int) {
	if m.warm() {
		return &m.warmStats, &m.warmCtrl, -1
	}
	return &m.stats[i], &m.ctrl[i], i
}

// lens returns the bins' queue lengths.
func (m *multiBin) lens() []int {
	out := make([]int, len(m.bins))
	for i := range m.bins {
		out[i] = m.bins[i].len()
	}
	return out
}
