package reports

import (
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// synthRun describes a synthetic Run for tests: n requests at a fixed
// rate over users with unequal rates, routed over backends.
type synthRun struct {
	policy   string
	n        int
	backends int
	users    []string
	rate     float64 // requests per second
	ttft     time.Duration
	tbt      time.Duration
	errEvery int // every errEvery-th request fails (0: none)
	seed     uint64
	multiBin bool
	scrape   bool // emit scrape events with prefix-cache counters
	vtc      bool // run under the vtc Queue, emitting its counters
	// steal and busy are the host CPU shares (%) put in the stop line
	// when busy > 0.
	steal, busy float64
}

// header returns the Run's header, fixed so goldens are stable.
func (s synthRun) header() results.Header {
	h := results.Header{Version: "test", Started: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Policy: s.policy, Router: s.policy, Queue: "fcfs", Seed: s.seed, Trace: "workload mixed (test)", Mode: "mock"}
	for i := 0; i < s.backends; i++ {
		h.Backends = append(h.Backends, "http://127.0.0.1:"+strconv.Itoa(9000+i))
	}
	if s.multiBin {
		h.Queue, h.Policy = "multi-bin", s.policy+"+multi-bin"
	}
	if s.vtc {
		h.Queue, h.Policy = "vtc", s.policy+"+vtc"
	}
	return h
}

// result returns the i-th synthetic Result. The request itself (user,
// lengths, arrival) depends only on i, so every policy sees the same
// workload; its latencies depend on the run's seed.
func (s synthRun) result(i int, rng *rand.Rand) *results.Result {
	wl := rand.New(rand.NewPCG(42, uint64(i)))
	user := s.users[min(int(wl.ExpFloat64()), len(s.users)-1)]
	intended := time.Duration(float64(i) / s.rate * float64(time.Second))
	out := 2 + wl.IntN(60)
	in := 100 + wl.IntN(900)
	ttft := s.ttft + time.Duration(rng.ExpFloat64()*float64(s.ttft))
	tbt := s.tbt + time.Duration(rng.IntN(int(s.tbt/time.Microsecond)))*time.Microsecond/4
	r := &results.Result{Seq: int64(i), ID: "r" + strconv.Itoa(i), User: user, Backend: i % s.backends,
		Intended: intended, Released: intended, Sent: intended + time.Duration(50+rng.IntN(500))*time.Microsecond,
		InputTokens: in, OutputTokens: out, PromptTokens: in, CompletionTokens: out,
		CachedTokens: rng.IntN(in / 2), Chunks: out, Status: 200}
	r.FirstToken = intended + ttft
	r.Done = r.FirstToken + time.Duration(out-1)*tbt
	r.Gaps = []results.GapBin{{V: roundUS(tbt), N: int64(out - 1)}}
	r.TBTMax = tbt
	if s.policy == "prefix-cache" {
		r.PredictedHitTokens = r.CachedTokens + in/10
	}
	if s.errEvery > 0 && i%s.errEvery == s.errEvery-1 {
		r.ErrClass, r.Status, r.Err = results.ErrHTTP5xx, 503, "503 Service Unavailable"
		r.FirstToken, r.CompletionTokens, r.CachedTokens, r.Chunks, r.Gaps = 0, 0, 0, 0, nil
		r.Done = r.Sent + time.Millisecond
	}
	return r
}

// roundUS rounds d to two significant digits in microseconds, as the
// replay package stores gaps.
func roundUS(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	scale := int64(1)
	for us/scale >= 100 {
		scale *= 10
	}
	return (us + scale/2) / scale * scale
}

// write writes the Run's results file into dir and returns its path.
func (s synthRun) write(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "results-"+s.policy+".jsonl")
	w, err := results.Create(path, s.header())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(s.seed, 1))
	var last time.Duration
	counters := map[string]float64{}
	for i := 0; i < s.n; i++ {
		r := s.result(i, rng)
		last = max(last, r.Done)
		counters[r.User] += float64(r.PromptTokens + 2*r.CompletionTokens)
		if s.vtc && i%20 == 19 {
			if err := w.WriteEvent(vtcEvent(r.Intended, counters)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteResult(r); err != nil {
			t.Fatal(err)
		}
		if s.scrape && i%50 == 49 {
			if err := s.writeScrapes(w, r.Done, i); err != nil {
				t.Fatal(err)
			}
		}
		if s.multiBin && i%10 == 0 {
			ev := &results.Event{At: r.Intended, Source: metrics.SourceMultiBin, Values: map[string]float64{
				"bin0_b_target": float64(8 + i%5), "bin1_b_target": float64(4 + i%3), "bin0_b_mem": 32}}
			if err := w.WriteEvent(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	stop := results.Stop{Reason: "done", Elapsed: last, Extra: map[string]float64{
		results.ExtraRequestedRate: s.rate, results.ExtraAchievedRate: s.rate * 0.99,
		results.ExtraMockLateP50: 40, results.ExtraMockLateP99: 300, results.ExtraMockLateMax: 900, results.ExtraMockSteps: 52000}}
	if s.busy > 0 {
		stop.Extra[results.ExtraHostStealPct], stop.Extra[results.ExtraHostBusyPct] = s.steal, s.busy
	}
	if err := w.Close(stop); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeScrapes writes one scrape event per Backend with counters that
// grow with the requests seen so far (backend b hits 10·(b+1) % of its
// queries) and a KV usage that rises over the run.
func (s synthRun) writeScrapes(w *results.Writer, at time.Duration, i int) error {
	for b := 0; b < s.backends; b++ {
		q := float64(1000 * (i + 1))
		ev := &results.Event{At: at, Source: metrics.SourceScrape + strconv.Itoa(b), Values: map[string]float64{
			"prefix_cache_queries_total": q, "prefix_cache_hits_total": q * 0.1 * float64(b+1),
			"kv_cache_usage_perc": float64(i%100) / 100, "num_requests_running": float64(b + 1)}}
		if err := w.WriteEvent(ev); err != nil {
			return err
		}
	}
	return nil
}

type replayResult = results.Result

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// vtcEvent is a vtc Queue state event with every user's counter.
func vtcEvent(at time.Duration, counters map[string]float64) *results.Event {
	v := map[string]float64{}
	for u, c := range counters {
		v["counter:"+u] = c
		v["queued:"+u] = 0
	}
	return &results.Event{At: at, Source: metrics.SourceVTC, Values: v}
}
