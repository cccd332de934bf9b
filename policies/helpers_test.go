package policies

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// fleet returns Backends b0..b(n-1) with the given in-flight requests and
// in-flight tokens 100 per request.
func fleet(inFlight ...int) []Backend {
	bs := make([]Backend, len(inFlight))
	for i, n := range inFlight {
		bs[i] = Backend{Index: i, ID: fmt.Sprintf("b%d", i), InFlight: n, InFlightTokens: 100 * n}
	}
	return bs
}

// only returns the State holding just Backend idx of bs (to steer a
// Router's pick while building up its cache view).
func only(bs []Backend, idx int, now time.Duration) State {
	return State{Now: now, Backends: []Backend{bs[idx]}}
}

// textReq is a completions Request with a text prompt.
func textReq(id, prompt string, tokens int) *traces.Request {
	return &traces.Request{ID: id, Prompt: prompt, InputTokens: tokens}
}

// blockReq is a token-exact Request of block ids.
func blockReq(id string, blockSize, tokens int, ids ...uint64) *traces.Request {
	return &traces.Request{ID: id, BlockIDs: ids, BlockSize: blockSize, InputTokens: tokens}
}

// mustRouter builds a Router by name or fails the test.
func mustRouter(t testing.TB, name string, p Params, seed uint64) Router {
	t.Helper()
	r, err := NewRouter(name, p, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatalf("NewRouter(%s, %v): %v", name, p, err)
	}
	return r
}

// mustPick picks or fails the test.
func mustPick(t testing.TB, r Router, req *traces.Request, st State) Choice {
	t.Helper()
	ch, err := r.Pick(req, st)
	if err != nil {
		t.Fatalf("%s.Pick(%s): %v", r.Name(), req.ID, err)
	}
	return ch
}

// step is one pick of a scripted sequence: route req with State st. When
// want >= 0 the pick must choose Backend want with reason (if set) and
// predicted hit tokens hit.
type step struct {
	req    *traces.Request
	st     State
	want   int
	reason string
	hit    int
}

// runSteps plays steps through r and checks every step that has want >= 0.
func runSteps(t *testing.T, r Router, steps []step) {
	t.Helper()
	for i, s := range steps {
		ch := mustPick(t, r, s.req, s.st)
		if s.want < 0 {
			continue
		}
		if ch.Backend != s.want || (s.reason != "" && ch.Reason != s.reason) || ch.PredictedHitTokens != s.hit {
			t.Errorf("step %d (%s): got backend %d reason %q hit %d; want backend %d reason %q hit %d",
				i, s.req.ID, ch.Backend, ch.Reason, ch.PredictedHitTokens, s.want, s.reason, s.hit)
		}
	}
}
