package metrics

import (
	"time"

	"github.com/tracebench/tracebench/results"
)

// userAcc aggregates one user's requests.
type userAcc struct {
	requests, errors, met int64
	demand, service       float64
	ttft                  sketch
	// svc is the service received over time (for the cumulative plot and
	// Jain's index); dem the service demanded, by intended arrival.
	svc, dem *series
	// asked and served are the service demanded (by arrival) and received
	// in each fairness window.
	asked, served []float64
	// vtc is the vtc/lcf Queue's counter over time (nil when none).
	vtc *series
}

// counter returns the user's VTC counter series, creating it.
func (u *userAcc) counter(buckets int) *series {
	if u.vtc == nil {
		u.vtc = newSeries(buckets, true)
	}
	return u.vtc
}

func newUserAcc(buckets int) *userAcc {
	return &userAcc{svc: newSeries(buckets, false), dem: newSeries(buckets, false)}
}

// arrive folds in one of the user's requests: its demand (the trace's
// intended lengths, falling back to the measured ones) and the service it
// received, spread evenly from first token to done as in the VTC
// artifact's analysis.
func (u *userAcc) arrive(r *results.Result, o Options) {
	u.requests++
	in, out := r.InputTokens, r.OutputTokens
	if in == 0 {
		in = r.PromptTokens
	}
	if out == 0 {
		out = r.CompletionTokens
	}
	d := o.ServiceWeights.Service(in, out)
	u.demand += d
	u.dem.add(r.Intended, d)
	addAt(&u.asked, int((r.Intended-o.Warmup)/o.FairnessWindow), d)
	if !r.OK() {
		u.errors++
	} else if r.FirstToken > 0 {
		u.ttft.add(r.TTFT())
	}
	// Service counts the prompt on the trace's basis, as demand does, so
	// a server tokenizer that splits text differently does not inflate
	// it; output tokens are the server's own (the same basis for both).
	// A prompt the server did not count (a failure before usage) is no
	// service.
	in = 0
	if r.PromptTokens > 0 {
		in = intendedPrompt(r)
	}
	s := o.ServiceWeights.Service(in, r.CompletionTokens)
	if s <= 0 {
		return
	}
	u.service += s
	from := r.FirstToken
	if from <= 0 || from > r.Done {
		from = r.Done
	}
	u.svc.spread(from, r.Done, s)
	spreadWindows(&u.served, from-o.Warmup, r.Done-o.Warmup, o.FairnessWindow, s)
}

// maxFairnessWindows bounds the fairness windows kept per user (two
// weeks of 60 s windows); service past the last one is left out of the
// service difference.
const maxFairnessWindows = 20160

// addAt adds v to (*w)[i], growing the slice as needed.
func addAt(w *[]float64, i int, v float64) {
	if i < 0 {
		i = 0
	}
	if i >= maxFairnessWindows {
		return
	}
	for len(*w) <= i {
		*w = append(*w, 0)
	}
	(*w)[i] += v
}

// spreadWindows adds v spread evenly over [from, to) into windows of the
// given width; an empty interval puts all of v at from.
func spreadWindows(w *[]float64, from, to, width time.Duration, v float64) {
	from = max(from, 0)
	if to <= from {
		addAt(w, int(from/width), v)
		return
	}
	total := float64(to - from)
	last := min(int((to-1)/width), maxFairnessWindows-1)
	for i := int(from / width); i <= last; i++ {
		lo, hi := max(from, time.Duration(i)*width), min(to, time.Duration(i+1)*width)
		addAt(w, i, v*float64(hi-lo)/total)
	}
}

// backendAcc aggregates the requests routed to one Backend and its
// scraped server figures.
type backendAcc struct {
	requests, errors          int64
	input, output             int64
	prompt, cached, predicted int64
	ttft                      sketch
	scraped                   bool
	firstHits, firstQueries   float64
	lastHits, lastQueries     float64
	kvMax                     float64
	kvSeen                    bool
	basis                     tokenBasis
	// genSeen, firstGen and lastGen are the scraped generated-tokens
	// counter at the first and last scrape.
	genSeen           bool
	firstGen, lastGen float64
}

func (b *backendAcc) add(r *results.Result) {
	b.requests++
	if !r.OK() {
		b.errors++
		return
	}
	b.input += int64(r.PromptTokens)
	b.output += int64(r.CompletionTokens)
	b.cached += int64(r.LocalCachedTokens())
	b.basis.add(r)
	b.predicted += int64(r.PredictedHitTokens)
	if r.FirstToken > 0 {
		b.ttft.add(r.TTFT())
	}
}
