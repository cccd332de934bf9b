package replay

import (
	"strconv"
	"time"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
)

// ewmaAlpha is the weight of a new sample in the TTFT/TBT moving averages.
const ewmaAlpha = 0.2

// Tracker keeps the client-side state of every Backend: in-flight
// requests and tokens, completions, errors, EWMAs of TTFT and TBT, and
// the last scraped server metrics. It is owned by one goroutine.
type Tracker struct {
	bs []policies.Backend
	// gone marks Backends that left the fleet: they get no new picks and
	// are left out of Snapshot; their in-flight requests still finish.
	gone []bool
}

// NewTracker tracks one Backend per URL, indexed in order.
func NewTracker(urls []string) *Tracker {
	t := &Tracker{bs: make([]policies.Backend, len(urls)), gone: make([]bool, len(urls))}
	for i, u := range urls {
		t.bs[i] = policies.Backend{Index: i, ID: backendID(i), URL: u}
	}
	return t
}

func backendID(i int) string { return "b" + strconv.Itoa(i) }

// Len is the number of Backends ever tracked, live or gone.
func (t *Tracker) Len() int { return len(t.bs) }

// Live is the number of Backends in the fleet now.
func (t *Tracker) Live() int {
	n := 0
	for _, g := range t.gone {
		if !g {
			n++
		}
	}
	return n
}

// Snapshot returns a copy of the state of every Backend in the fleet
// now (a Backend that left is not offered to the policies).
func (t *Tracker) Snapshot(now time.Duration) policies.State {
	bs := make([]policies.Backend, 0, len(t.bs))
	for i, b := range t.bs {
		if !t.gone[i] {
			bs = append(bs, b)
		}
	}
	return policies.State{Now: now, Backends: bs}
}

// Join adds the Backend at url to the fleet and returns its Index: a URL
// seen before gets its old Index (and state) back, a new one the next
// Index. joined is false when url is already live.
func (t *Tracker) Join(url string) (i int, joined bool) {
	for i, b := range t.bs {
		if b.URL == url {
			if !t.gone[i] {
				return i, false
			}
			t.gone[i] = false
			return i, true
		}
	}
	i = len(t.bs)
	t.bs = append(t.bs, policies.Backend{Index: i, ID: backendID(i), URL: url})
	t.gone = append(t.gone, false)
	return i, true
}

// Leave takes Backend i out of the fleet; false when it was not live.
func (t *Tracker) Leave(i int) bool {
	if i < 0 || i >= len(t.bs) || t.gone[i] {
		return false
	}
	t.gone[i] = true
	return true
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
func (t *Tracker) OnDone(i, tokens int, r *results.Result) {
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
func meanGap(r *results.Result) time.Duration {
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
