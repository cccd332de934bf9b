package engine

import (
	"strings"
	"testing"
	"time"
)

// pin returns a pointer to slot, for Request.Slot.
func pin(slot int) *int { return &slot }

// TestPinnedSlotsDecodeAsRuns decodes two requests pinned to chosen
// slots (llama.cpp's id_slot): with the split KV cache, consecutive slots
// decode as one ubatch and slots apart as one each.
func TestPinnedSlotsDecodeAsRuns(t *testing.T) {
	tests := []struct {
		name string
		a, b int
		want time.Duration
	}{
		{"consecutive", 0, 1, 5*time.Millisecond + 2*time.Millisecond},
		{"alternating", 0, 2, 2 * (5*time.Millisecond + time.Millisecond)},
		{"ends", 3, 0, 2 * (5*time.Millisecond + time.Millisecond)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(llamaConfig(LlamaCppConfig{SplitKV: true}))
			if err != nil {
				t.Fatal(err)
			}
			first := firstStep(t, e,
				&Request{ID: "a", Prompt: tokensFrom(1000, 10), MaxTokens: 4, Slot: pin(tc.a)},
				&Request{ID: "b", Prompt: tokensFrom(2000, 10), MaxTokens: 4, Slot: pin(tc.b)})
			if got := e.Step(first).Duration; got != tc.want {
				t.Fatalf("decode step on slots %d and %d took %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestPinnedSlots: requests that name their slot take it with no save or
// restore, reuse only its common prefix, and wait while it is busy
// without holding back the requests behind them.
func TestPinnedSlots(t *testing.T) {
	l := LlamaCppConfig{SplitKV: true, SaveFixed: 300 * time.Millisecond, SavePerToken: 100 * time.Microsecond}
	e := filledEngine(t, l)
	// Slot 2 holds fill2's prompt: a prompt sharing 60 of its tokens
	// reuses them on slot 2 though another slot is the least recently
	// used, and an unrelated prompt pinned to slot 0 evicts it unsaved.
	first := firstStep(t, e,
		&Request{ID: "a", Prompt: append(tokensFrom(3000, 60), tokensFrom(7000, 10)...), MaxTokens: 4, Slot: pin(2)},
		&Request{ID: "b", Prompt: tokensFrom(8000, 10), MaxTokens: 4, Slot: pin(0)})
	if st := e.Stats(); st.SlotSaves != 0 || st.SlotRestores != 0 {
		t.Fatalf("pinned requests saved %d and restored %d slots, want none", st.SlotSaves, st.SlotRestores)
	}
	// c names busy slot 2 and waits; d, behind it, takes its free slot.
	for _, r := range []*Request{
		{ID: "c", Prompt: tokensFrom(9000, 10), MaxTokens: 1, Slot: pin(2)},
		{ID: "d", Prompt: tokensFrom(9500, 10), MaxTokens: 4, Slot: pin(1)},
	} {
		if err := e.Add(first, r); err != nil {
			t.Fatal(err)
		}
	}
	st := e.Step(first)
	if !e.slots.slots[1].busy || e.Stats().Waiting != 1 || e.waiting[0].req.ID != "c" {
		t.Fatalf("after c (slot 2, busy) and d (slot 1, free): slot 1 busy %v, %d waiting; want d on slot 1 and c waiting",
			e.slots.slots[1].busy, e.Stats().Waiting)
	}
	runAll(e, st.End())
	if st := e.Stats(); st.SlotSaves != 0 || st.Running+st.Waiting != 0 {
		t.Fatalf("after the pinned requests: %d saves, %d running, %d waiting; want none", st.SlotSaves, st.Running, st.Waiting)
	}
}

func TestPinnedSlotOutOfRange(t *testing.T) {
	e := filledEngine(t, LlamaCppConfig{})
	err := e.Add(0, &Request{ID: "x", Prompt: tokensFrom(1, 5), MaxTokens: 1, Slot: pin(4)})
	if err == nil || !strings.Contains(err.Error(), "slot 4: the server has slots 0 to 3") {
		t.Fatalf("Add with slot 4 of 4: err %v, want one naming the slots", err)
	}
}
