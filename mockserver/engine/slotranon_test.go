package engine

import (
	"strings"
	"testing"
	"time"
)

// TestRanOnSlot: a replayed request placed on the slot the measured
// server chose pays what the server's choice implies there: a save of
// the slot's state (and a restore of the prompt from the host cache)
// when the slot held an unrelated prompt, none when it held most of the
// prompt; and it waits while that slot is busy.
func TestRanOnSlot(t *testing.T) {
	l := LlamaCppConfig{SaveFixed: 300 * time.Millisecond, SavePerToken: 100 * time.Microsecond,
		RestoreFixed: 50 * time.Millisecond, RestorePerToken: 10 * time.Microsecond}
	tests := []struct {
		name          string
		prompt        func(e *Engine) []int
		slot          int
		saves         int64
		wantCached    int
		wantFirstStep time.Duration
	}{
		// Slot 1 is not the least recently used (the first fill took
		// slot 3): a replay that follows the server still saves slot 1's
		// 100 tokens there.
		{"unrelated prompt", func(*Engine) []int { return tokensFrom(9000, 10) }, 1, 1, 0,
			300*time.Millisecond + 100*100*time.Microsecond},
		// The prompt shares 90 of the 100 prompt tokens slot 2 holds: no
		// save.
		{"similar prompt", func(e *Engine) []int {
			p := make([]int, 90, 100)
			for i, tok := range e.slots.slots[2].tokens[:90] {
				p[i] = int(tok)
			}
			return append(p, tokensFrom(7000, 10)...)
		}, 2, 0, 90, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := filledEngine(t, l)
			e.slots.similarity = DefaultSlotSimilarity // llamaConfig turns the LCP pass off
			before := e.Stats().SlotSaves
			if err := e.Add(0, &Request{ID: "r", Prompt: tc.prompt(e), MaxTokens: 1, RanOn: pin(tc.slot)}); err != nil {
				t.Fatal(err)
			}
			st := e.Step(0)
			if got := e.Stats().SlotSaves - before; got != tc.saves {
				t.Errorf("saves %d, want %d", got, tc.saves)
			}
			if tc.wantFirstStep > 0 && st.Duration != tc.wantFirstStep {
				t.Errorf("first step %v, want %v (the save alone)", st.Duration, tc.wantFirstStep)
			}
			for _, ev := range st.Events {
				if ev.Admitted && (ev.CachedTokens != tc.wantCached || ev.Slot != tc.slot) {
					t.Errorf("on slot %d with %d cached, want slot %d with %d", ev.Slot, ev.CachedTokens, tc.slot, tc.wantCached)
				}
			}
		})
	}
}

// TestRanOnBusySlotWaits: a replayed request whose slot is still busy
// in the replay waits for it, letting the requests behind it pass.
func TestRanOnBusySlotWaits(t *testing.T) {
	e := filledEngine(t, LlamaCppConfig{})
	first := firstStep(t, e, &Request{ID: "a", Prompt: tokensFrom(9000, 10), MaxTokens: 4, Slot: pin(1)})
	for _, r := range []*Request{
		{ID: "b", Prompt: tokensFrom(9500, 10), MaxTokens: 1, RanOn: pin(1)},
		{ID: "c", Prompt: tokensFrom(9700, 10), MaxTokens: 4, RanOn: pin(2)},
	} {
		if err := e.Add(first, r); err != nil {
			t.Fatal(err)
		}
	}
	e.Step(first)
	if !e.slots.slots[2].busy || e.Stats().Waiting != 1 || e.waiting[0].req.ID != "b" {
		t.Fatalf("slot 2 busy %v, %d waiting; want c on slot 2 and b waiting for slot 1", e.slots.slots[2].busy, e.Stats().Waiting)
	}
	if err := e.Add(0, &Request{ID: "x", Prompt: tokensFrom(1, 5), MaxTokens: 1, RanOn: pin(4)}); err == nil ||
		!strings.Contains(err.Error(), "ran on slot 4: the server has slots 0 to 3") {
		t.Fatalf("Add ran on slot 4 of 4: err %v, want one naming the slots", err)
	}
}
