package engine

import (
	"testing"
	"time"
)

// admissionOf steps e from 0 until request id is admitted and returns its
// admission event.
func admissionOf(t *testing.T, e *Engine, id string) Event {
	t.Helper()
	var now time.Duration
	for !e.Idle() {
		st := e.Step(now)
		now = st.End()
		for _, ev := range st.Events {
			if ev.ID == id && ev.Admitted {
				return ev
			}
		}
	}
	t.Fatalf("%s was never admitted", id)
	return Event{}
}

// TestAdmissionReportsSlotWork: an admission event says what the slot
// choice copied, priced or not: a prompt unrelated to every slot takes
// the least recently used one and saves its 100 tokens; one that extends
// a slot's prompt reuses that slot and saves nothing.
func TestAdmissionReportsSlotWork(t *testing.T) {
	for _, tc := range []struct {
		name      string
		l         LlamaCppConfig
		prompt    []int
		wantSaved int
	}{
		{"unrelated, unpriced", LlamaCppConfig{}, tokensFrom(9000, 10), 100},
		{"unrelated, priced", LlamaCppConfig{SaveFixed: 1000, SavePerToken: 10}, tokensFrom(9000, 10), 100},
		{"extends a slot", LlamaCppConfig{}, tokensFrom(2000, 150), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := filledEngine(t, tc.l)
			e.slots.similarity = DefaultSlotSimilarity
			if err := e.Add(0, &Request{ID: "new", Prompt: tc.prompt, MaxTokens: 1}); err != nil {
				t.Fatal(err)
			}
			ev := admissionOf(t, e, "new")
			if ev.SlotSaved != tc.wantSaved {
				t.Fatalf("SlotSaved = %d, want %d", ev.SlotSaved, tc.wantSaved)
			}
			if st := e.Stats(); int(st.SlotSavedTokens) != tc.wantSaved {
				t.Fatalf("stats saved %d tokens, the event %d", st.SlotSavedTokens, tc.wantSaved)
			}
		})
	}
}
