package policies

import (
	"bufio"
	"container/list"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// simFleet is a small clock-free model of a fleet for Router tests: each
// Backend serves Requests for a time that grows with the uncached prompt
// and the output, and keeps an exact LRU prefix cache of simBlock-token
// blocks, so the hit rate a Router earns can be measured.
// simBlock is the simulated servers' KV block in tokens (vLLM uses 16;
// 64 keeps the simulation fast and changes hits only at block edges).
const simBlock = 64

type simFleet struct {
	n        int
	capacity int // blocks per Backend
	caches   []*lruBlocks
	inflight []simJob
	picks    []int
	hit      int // server-side cached prompt tokens
	pred     int // Router-predicted cached prompt tokens
	prompt   int
}

type simJob struct {
	done    time.Duration
	backend int
	req     *traces.Request
	tokens  int
}

// lruBlocks is an exact LRU set of block hashes.
type lruBlocks struct {
	cap   int
	order *list.List
	at    map[uint64]*list.Element
}

func newLRUBlocks(c int) *lruBlocks {
	return &lruBlocks{cap: c, order: list.New(), at: map[uint64]*list.Element{}}
}

// serve returns the leading blocks held, then makes all of them recent.
func (c *lruBlocks) serve(hashes []uint64) int {
	lead := 0
	for lead < len(hashes) && c.at[hashes[lead]] != nil {
		lead++
	}
	for _, h := range hashes {
		if e := c.at[h]; e != nil {
			c.order.MoveToFront(e)
			continue
		}
		c.at[h] = c.order.PushFront(h)
		if c.order.Len() > c.cap {
			old := c.order.Back()
			c.order.Remove(old)
			delete(c.at, old.Value.(uint64))
		}
	}
	return lead
}

func newSimFleet(n, capacity int) *simFleet {
	f := &simFleet{n: n, capacity: capacity}
	for i := 0; i < n; i++ {
		f.caches = append(f.caches, newLRUBlocks(capacity))
	}
	return f
}

// run replays reqs (in arrival order) through r and records its picks.
func (f *simFleet) run(t testing.TB, r Router, reqs []*traces.Request) {
	fb, _ := r.(Feedback)
	r = PredictHits(r)
	var view promptView
	for _, req := range reqs {
		f.finish(req.Arrival, fb)
		st := State{Now: req.Arrival, Backends: f.snapshot()}
		ch := mustPick(t, r, req, st)
		view.load(req)
		hashes := view.hashChain(nil, simBlock, 0)
		hitTokens := min(f.caches[ch.Backend].serve(hashes)*simBlock, req.InputTokens)
		f.picks = append(f.picks, ch.Backend)
		f.hit, f.pred, f.prompt = f.hit+hitTokens, f.pred+ch.PredictedHitTokens, f.prompt+req.InputTokens
		// 40 µs per uncached prompt token, 15 ms per output token.
		service := time.Duration(req.InputTokens-hitTokens)*40*time.Microsecond + time.Duration(req.OutputTokens)*15*time.Millisecond
		f.inflight = append(f.inflight, simJob{done: req.Arrival + service, backend: ch.Backend, req: req, tokens: req.InputTokens + req.OutputTokens})
	}
	f.finish(1<<62, fb)
}

// finish completes the jobs done by now, earliest first, with feedback.
func (f *simFleet) finish(now time.Duration, fb Feedback) {
	sort.SliceStable(f.inflight, func(i, j int) bool { return f.inflight[i].done < f.inflight[j].done })
	k := 0
	for k < len(f.inflight) && f.inflight[k].done <= now {
		j := f.inflight[k]
		if fb != nil {
			fb.Done(j.done, j.req, Outcome{Backend: j.backend, PromptTokens: j.req.InputTokens, OutputTokens: j.req.OutputTokens})
		}
		k++
	}
	f.inflight = f.inflight[k:]
}

func (f *simFleet) snapshot() []Backend {
	bs := fleet(make([]int, f.n)...)
	for i := range bs {
		bs[i].InFlightTokens = 0
	}
	for _, j := range f.inflight {
		bs[j.backend].InFlight++
		bs[j.backend].InFlightTokens += j.tokens
	}
	return bs
}

func (f *simFleet) hitRate() float64  { return float64(f.hit) / float64(max(f.prompt, 1)) }
func (f *simFleet) predRate() float64 { return float64(f.pred) / float64(max(f.prompt, 1)) }

// mooncakeRequests reads the first n rows of the Mooncake conversation
// trace, or skips the test when the shared traces are absent.
func mooncakeRequests(t testing.TB, n int) []*traces.Request {
	path := filepath.Join("..", "..", "shared", "traces", "mooncake", "conversation_trace.jsonl")
	fh, err := os.Open(path)
	if err != nil {
		t.Skipf("Mooncake trace not available (%v); it lives in ../shared/traces relative to the repository", err)
	}
	defer fh.Close()
	var out []*traces.Request
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for len(out) < n && sc.Scan() {
		var row struct {
			Timestamp int64    `json:"timestamp"`
			Input     int      `json:"input_length"`
			Output    int      `json:"output_length"`
			HashIDs   []uint64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s line %d: %v", path, len(out)+1, err)
		}
		out = append(out, &traces.Request{ID: fmt.Sprint(len(out)), Arrival: time.Duration(row.Timestamp) * time.Millisecond,
			BlockIDs: row.HashIDs, BlockSize: 512, InputTokens: row.Input, OutputTokens: row.Output})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

// syntheticRequests spreads benchRequests over time (4 per second).
func syntheticRequests(n int) []*traces.Request {
	reqs := benchRequests(n)
	for i, r := range reqs {
		r.Arrival = time.Duration(i) * 250 * time.Millisecond
	}
	return reqs
}
