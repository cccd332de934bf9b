package engine

import (
	"testing"
	"time"
)

// run drives e in virtual time until idle or limit steps, returning every
// step; idle gaps are skipped.
func run(t *testing.T, e *Engine, now time.Duration, limit int) ([]Step, time.Duration) {
	t.Helper()
	var steps []Step
	for i := 0; i < limit && !e.Idle(); i++ {
		st := e.Step(now)
		steps = append(steps, st)
		now = st.End()
	}
	if !e.Idle() {
		t.Fatalf("engine not idle after %d steps", limit)
	}
	return steps, now
}

// prompt returns n deterministic token ids starting from seed.
func prompt(n, seed int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = (seed*7919 + i*104729) % VocabSize
	}
	return p
}

// firstToken returns the end time of the step that emitted id's first token.
func firstToken(steps []Step, id string) (time.Duration, Event, bool) {
	for _, st := range steps {
		for _, ev := range st.Events {
			if ev.ID == id && ev.First {
				return st.End(), ev, true
			}
		}
	}
	return 0, Event{}, false
}

func admission(steps []Step, id string) (Event, bool) {
	for _, st := range steps {
		for _, ev := range st.Events {
			if ev.ID == id && ev.Admitted {
				return ev, true
			}
		}
	}
	return Event{}, false
}

func TestSamePromptTwiceHitsWholeBlocks(t *testing.T) {
	tests := []struct {
		name       string
		promptLen  int
		wantCached int
	}{
		{"1000 tokens: 62 blocks, 8 recomputed", 1000, 992},
		{"1008 tokens = 63 blocks: last block recomputed", 1008, 992},
		{"1009 tokens: 63 blocks hit", 1009, 1008},
		{"16 tokens: last token forces a miss", 16, 0},
		{"17 tokens: one block", 17, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			p := prompt(tc.promptLen, 1)
			if err := e.Add(0, &Request{ID: "a", Prompt: p, MaxTokens: 4, IgnoreEOS: true}); err != nil {
				t.Fatal(err)
			}
			steps, now := run(t, e, 0, 100)
			ttftA, evA, _ := firstToken(steps, "a")
			if err := e.Add(now, &Request{ID: "b", Prompt: p, MaxTokens: 4, IgnoreEOS: true}); err != nil {
				t.Fatal(err)
			}
			steps, _ = run(t, e, now, 100)
			endB, _, _ := firstToken(steps, "b")
			adm, _ := admission(steps, "b")
			if evA.CachedTokens != 0 || adm.CachedTokens != tc.wantCached {
				t.Fatalf("cached = %d then %d, want 0 then %d", evA.CachedTokens, adm.CachedTokens, tc.wantCached)
			}
			if ttftB := endB - now; tc.wantCached > 0 && ttftB >= ttftA {
				t.Fatalf("TTFT with hit %v ≥ without %v", ttftB, ttftA)
			}
			st := e.Stats()
			if st.PrefixQueries != int64(2*tc.promptLen) || st.PrefixHits != int64(tc.wantCached) {
				t.Fatalf("queries/hits = %d/%d, want %d/%d", st.PrefixQueries, st.PrefixHits, 2*tc.promptLen, tc.wantCached)
			}
		})
	}
}
