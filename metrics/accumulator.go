package metrics

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/tracebench/tracebench/results"
)

// Accumulator folds the Results and Events of one Run into bounded
// aggregates. It is used by one goroutine. Its memory grows with users,
// Backends and time buckets, never with requests or tokens.
type Accumulator struct {
	h results.Header
	o Options

	ttft, serverTTFT, tbt, tpot, e2e, queueWait, schedLag *hdrhistogram.Histogram
	overRange                                             int64 // requests with a latency clamped to histMax

	requests, ok, skipped, met int64
	errors                     map[string]int64
	lastDone                   time.Duration

	promptTokens, completionTokens, cachedTokens int64
	predictedTokens, chunks                      int64
	burstGaps                                    int64 // TBT gaps under burstGapUS
	predicted                                    bool
	basis                                        tokenBasis

	users    map[string]*userAcc
	backends []*backendAcc
	// fleet lists Backends joining and leaving mid-run; joinedURLs the
	// URLs of those that joined, by Index.
	fleet      []FleetChange
	joinedURLs []string

	throughput, completions, inFlight, waiting *series
	ttftAt                                     *series // TTFT (ms) by intended arrival, for means
	bins                                       map[string]*series
	pd                                         *pdAcc // nil unless the Run disaggregated
	sessions                                   sessionsAcc
	reason                                     reasoningAcc
}

// NewAccumulator returns an empty Accumulator for the Run described by h.
// Zero fields of o take their defaults (see DefaultOptions).
func NewAccumulator(h results.Header, o Options) *Accumulator {
	o = o.withDefaults()
	a := &Accumulator{
		h: h, o: o,
		ttft: newHist(), serverTTFT: newHist(), tbt: newHist(), tpot: newHist(),
		e2e: newHist(), queueWait: newHist(), schedLag: newHist(),
		errors:      map[string]int64{},
		users:       map[string]*userAcc{},
		throughput:  newSeries(o.Buckets, false),
		completions: newSeries(o.Buckets, false),
		inFlight:    newSeries(o.Buckets, false),
		waiting:     newSeries(o.Buckets, false),
		ttftAt:      newSeries(o.Buckets, true),
		bins:        map[string]*series{},
		pd:          newPDAcc(h.Roles),
		reason:      newReasoningAcc(),
	}
	for i := range h.Backends {
		a.backend(i)
	}
	return a
}

// Add folds one Result in. Results whose intended arrival falls before
// Options.Warmup are only counted as skipped.
func (a *Accumulator) Add(r *results.Result) {
	if r.Intended < a.o.Warmup {
		a.skipped++
		return
	}
	a.requests++
	a.lastDone = max(a.lastDone, r.Done, r.Intended)
	u := a.user(r.User)
	b := a.backend(r.Backend)
	u.arrive(r, a.o)
	b.add(r)
	a.addOccupancy(r)
	a.sessions.add(r)
	if a.pd != nil {
		a.pd.add(r)
	}
	if !r.OK() {
		a.errors[r.ErrClass]++
		return
	}
	a.ok++
	a.addLatencies(r)
	a.addTokens(r)
	if MeetsSLO(a.o.SLO, r) {
		a.met++
		u.met++
	}
}

// addOccupancy adds the request's waiting and in-flight time to the time
// series.
func (a *Accumulator) addOccupancy(r *results.Result) {
	sent := r.Sent
	if sent <= 0 || sent > r.Done {
		sent = r.Done
	}
	a.waiting.spread(r.Intended, sent, (sent - r.Intended).Seconds())
	if r.Sent > 0 && r.Done > r.Sent {
		a.inFlight.spread(r.Sent, r.Done, (r.Done - r.Sent).Seconds())
	}
}

// addLatencies records a successful request's latencies.
func (a *Accumulator) addLatencies(r *results.Result) {
	var over int64
	defer func() {
		if over > 0 {
			a.overRange++
		}
	}()
	if r.FirstToken > 0 {
		over += recordDur(a.ttft, r.TTFT())
		over += recordDur(a.serverTTFT, r.ServerTTFT())
		a.ttftAt.add(r.Intended, float64(r.TTFT())/1e6)
	}
	for _, g := range r.Gaps {
		over += recordUS(a.tbt, g.V, g.N)
		if g.V < burstGapUS {
			a.burstGaps += g.N
		}
	}
	if r.CompletionTokens >= 2 && r.FirstToken > 0 && r.Chunks >= 2 {
		over += recordDur(a.tpot, r.TPOT())
	}
	over += recordDur(a.e2e, r.E2E())
	over += recordDur(a.queueWait, r.QueueWait())
	if r.Sent > 0 {
		over += recordDur(a.schedLag, r.ScheduleLag())
	}
	over += a.reason.add(r)
}

// addTokens counts a successful request's tokens and throughput.
func (a *Accumulator) addTokens(r *results.Result) {
	a.promptTokens += int64(r.PromptTokens)
	a.completionTokens += int64(r.CompletionTokens)
	a.cachedTokens += int64(r.LocalCachedTokens())
	a.basis.add(r)
	a.predictedTokens += int64(r.PredictedHitTokens)
	a.predicted = a.predicted || r.PredictedHitTokens > 0
	a.chunks += int64(r.Chunks)
	a.addThroughput(r)
	a.completions.add(r.Done, 1)
}

// addThroughput adds a successful request's output tokens to the
// throughput series when they streamed: the first at the first token,
// the others spread evenly up to done. Counting them all at done would
// draw each completion as a burst.
func (a *Accumulator) addThroughput(r *results.Result) {
	n := float64(r.CompletionTokens)
	if r.FirstToken <= 0 || r.Done <= r.FirstToken || n < 2 {
		at := r.Done
		if r.FirstToken > 0 {
			at = r.FirstToken
		}
		a.throughput.add(at, n)
		return
	}
	a.throughput.add(r.FirstToken, 1)
	a.throughput.spread(r.FirstToken, r.Done, n-1)
}

// MeetsSLO reports whether r succeeded and met the bounds of slo that
// apply to its user (TTFT, TTFOT, TPOT, E2E; a zero bound is not
// checked). A request with no output token misses a TTFOT bound.
func MeetsSLO(slo SLO, r *results.Result) bool {
	if !r.OK() {
		return false
	}
	s := slo.For(r.User)
	if s.TTFT > 0 && (r.FirstToken == 0 || r.TTFT() > s.TTFT) {
		return false
	}
	if s.TTFOT > 0 && (r.FirstOutput == 0 || r.TTFOT() > s.TTFOT) {
		return false
	}
	if s.TPOT > 0 && r.Chunks >= 2 && r.TPOT() > s.TPOT {
		return false
	}
	return s.E2E <= 0 || r.E2E() <= s.E2E
}

func (a *Accumulator) user(id string) *userAcc {
	u, ok := a.users[id]
	if !ok {
		u = newUserAcc(a.o.Buckets)
		a.users[id] = u
	}
	return u
}

// maxUnlistedBackends bounds the Backend indexes accepted when the header
// lists no Backends.
const maxUnlistedBackends = 4096

// backend returns the aggregate of Backend i, or a throw-away sink for
// requests that reached no Backend (i < 0) or name one the header does
// not list.
func (a *Accumulator) backend(i int) *backendAcc {
	limit := a.backendLimit()
	if i < 0 || i >= limit {
		return &backendAcc{}
	}
	for len(a.backends) <= i {
		a.backends = append(a.backends, &backendAcc{})
	}
	return a.backends[i]
}
