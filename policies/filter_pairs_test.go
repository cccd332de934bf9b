package policies

import (
	"fmt"
	"testing"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/traces"
)

// optionalInterfaces reports, per optional interface the replay looks
// for, whether r offers it (through any filter it is wrapped in).
func optionalInterfaces(r Router) map[string]bool {
	_, fb := As[Feedback](r)
	_, tf := As[TokenFeedback](r)
	_, sr := As[StopReporter](r)
	_, hp := As[HitPredictor](r)
	_, kv := As[KVEventRouter](r)
	return map[string]bool{"Feedback": fb, "TokenFeedback": tf, "StopReporter": sr, "HitPredictor": hp,
		"KVEventRouter": kv}
}

// TestFiltersKeepRouterInterfaces wraps every registered Router in every
// registered filter: the wrapped Router offers every optional interface
// the bare one does (the filter may add Feedback and StopReporter), and
// on Requests the filter does not narrow (no adapter) it picks the same
// Backends with the same predicted hits.
func TestFiltersKeepRouterInterfaces(t *testing.T) {
	for _, filter := range Names(KindFilter) {
		for _, router := range Names(KindRouter) {
			t.Run(filter+"/"+router, func(t *testing.T) {
				bare := mustRouter(t, router, nil, 7)
				inner := mustRouter(t, router, nil, 7)
				wrapped, err := NewFilter(filter, nil, inner)
				if err != nil {
					t.Fatal(err)
				}
				want, got := optionalInterfaces(bare), optionalInterfaces(wrapped)
				for name, ok := range want {
					if ok && !got[name] {
						t.Errorf("%s implements %s, wrapped in %s it does not", router, name, filter)
					}
				}
				for _, name := range []string{"TokenFeedback", "HitPredictor", "KVEventRouter"} {
					if got[name] && !want[name] {
						t.Errorf("wrapped in %s, %s gains %s", filter, router, name)
					}
				}
				bindPair(t, bare, wrapped)
				comparePicks(t, bare, wrapped)
			})
		}
	}
}

// bindPair binds both Routers' KV-event indexes (for KV-event Routers)
// and fills them alike: backend 1 holds the first block of every
// prompt comparePicks sends.
func bindPair(t *testing.T, routers ...Router) {
	t.Helper()
	for _, r := range routers {
		kr, ok := As[KVEventRouter](r)
		if !ok {
			continue
		}
		idx, err := kr.BindKVEvents(3)
		if err != nil {
			t.Fatal(err)
		}
		for b := range 3 {
			idx.Note(b, func(s *kvevents.Stats) { s.Subscribed = true })
		}
		toks := make([]int, 16)
		for i := range toks {
			toks[i] = i
		}
		hs := kvevents.ChainHashes(nil, toks, 16, 0)
		idx.Apply(1, kvevents.Decoded{Batch: kvevents.Batch{Events: []kvevents.Event{
			{Kind: kvevents.Stored, Hashes: hs, Tokens: toks, BlockSize: 16}}}})
	}
}

// comparePicks sends the same Requests to both Routers and fails on the
// first pick or predicted hit that differs.
func comparePicks(t *testing.T, a, b Router) {
	t.Helper()
	toks := make([]int, 48)
	for i := range toks {
		toks[i] = i
	}
	for i := range 12 {
		req := &traces.Request{ID: fmt.Sprint(i), TokenIDs: toks[:16+16*(i%3)], InputTokens: 16 + 16*(i%3),
			Session: fmt.Sprint(i % 2), OutputTokens: 4}
		st := State{Backends: fleet(i%2, 1, 0)}
		ca, ea := a.Pick(req, st)
		cb, eb := b.Pick(req, st)
		if (ea == nil) != (eb == nil) {
			t.Fatalf("request %d: errors differ: %v, %v", i, ea, eb)
		}
		if ca.Backend != cb.Backend || ca.PredictedHitTokens != cb.PredictedHitTokens {
			t.Fatalf("request %d: bare picked %d (hit %d), wrapped %d (hit %d)", i, ca.Backend,
				ca.PredictedHitTokens, cb.Backend, cb.PredictedHitTokens)
		}
		for _, r := range []Router{a, b} {
			if fb, ok := As[Feedback](r); ok {
				fb.Done(0, req, Outcome{})
			}
		}
	}
}
