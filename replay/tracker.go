package replay

import (
	"strconv"
	"time"

	"github.com/tracebench/tracebench/policies"
)

// ewmaAlpha is the weight of a new sample in the TTFT/TBT moving averages.
const ewmaAlpha = 0.2

// Tracker keeps the client-side state of every Backend: in-flight
// requests and tokens, completions, errors, EWMAs of TTFT and TBT, and
// the last scraped server metrics. It is owned by one goroutine.
type Tracker struct {
	bs []policies.Backend
}

// NewTracker tracks one Backend per URL, indexed in order.
func NewTracker(urls []string) *Tracker {
	t := &Tracker{bs: make([]policies.Backend, len(urls))}
	for i, u := range urls {
		t.bs[i] = policies.Backend{Index: i, ID: backendID(i), URL: u}
	}
	return t
}

func backendID(i int) string { return "b" + strconv.Itoa(i) }

// Len is the number of Backends.
func (t *Tracker) Len() int { return len(t.bs) }

// Snapshot returns a copy of every Backend's state.
func (t *Tracker) Snapshot(now time.Duration) policies.State {
	return policies.State{Now: now, Backends: append([]policies.Backend(nil), t.bs...)}
}

// InFlight is the total in-flight requests across Backends.
func (t *Tracker) InFlight() int {
	n := 0
	for _, b := range t.bs {
		n += b.InFlight
	}
	return n
}

// OnDispatch records a Request of tokens (prompt + expected output) sent
// to Backend i.
func (t *Tracker) OnDispatch(i, tokens int) {
	t.bs[i].InFlight++
	t.bs[i].InFlightTokens += tokens
}

// OnDone records the end of a Request of tokens on Backend i.
func (t *Tracker) OnDone(i, tokens int, r *Result) {
	b := &t.bs[i]
	b.InFlight--
	b.InFlightTokens -= tokens
	if !r.OK() {
		b.Errors++
		return
	}
	b.Completed++
	if ttft := r.TTFT(); ttft > 0 {
		b.EWMATTFT = ewma(b.EWMATTFT, ttft)
	}
	if tbt := meanGap(r); tbt > 0 {
		b.EWMATBT = ewma(b.EWMATBT, tbt)
	}
}

// OnScrape stores server metrics scraped from Backend i.
func (t *Tracker) OnScrape(i int, m ServerMetrics) {
	b := &t.bs[i]
	b.Scraped = m.OK
	b.Running, b.Waiting, b.KVUsage = m.Running, m.Waiting, m.KVUsage
	b.PrefixQueries, b.PrefixHits = m.PrefixQueries, m.PrefixHits
	if m.NumGPUBlocks > 0 {
		b.NumGPUBlocks = m.NumGPUBlocks
	}
	b.LoRAScraped = m.OK && m.LoRA != nil
	b.LoRARunning, b.LoRAWaiting, b.MaxLoRA = nil, nil, 0
	if b.LoRAScraped {
		b.LoRARunning, b.LoRAWaiting, b.MaxLoRA = m.LoRA.Running, m.LoRA.Waiting, m.LoRA.MaxLoRA
	}
}

func ewma(old, sample time.Duration) time.Duration {
	if old == 0 {
		return sample
	}
	return time.Duration(ewmaAlpha*float64(sample) + (1-ewmaAlpha)*float64(old))
}

// meanGap is the mean inter-chunk gap of r (0 with fewer than 2 chunks).
func meanGap(r *Result) time.Duration {
	var sum, n int64
	for _, g := range r.Gaps {
		sum += g.V * g.N
		n += g.N
	}
	if n == 0 {
		return 0
	}
	return time.Duration(sum/n) * time.Microsecond
}
