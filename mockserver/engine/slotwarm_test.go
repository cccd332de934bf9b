package engine

import (
	"strings"
	"testing"
	"time"
)

// TestWarmSlots: an engine started from another's SlotState pays a save
// for its first unrelated prompt (every slot holds one), where a cold
// engine's empty slots pay none; a state of the wrong size is refused.
func TestWarmSlots(t *testing.T) {
	l := LlamaCppConfig{SaveFixed: 300 * time.Millisecond}
	src := filledEngine(t, l)
	for _, tc := range []struct {
		name  string
		warm  *SlotState
		saves int64
	}{
		{"cold", nil, 0},
		{"warm", src.SlotState(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := llamaConfig(l)
			cfg.WarmSlots = tc.warm
			e, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			firstStep(t, e, &Request{ID: "new", Prompt: tokensFrom(9000, 10), MaxTokens: 1})
			if s := e.Stats().SlotSaves; s != tc.saves {
				t.Fatalf("SlotSaves = %d, want %d", s, tc.saves)
			}
		})
	}
	cfg := llamaConfig(l)
	cfg.WarmSlots = &SlotState{Slots: make([]SlotHeld, 2)}
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "WarmSlots has 2 slots") {
		t.Fatalf("New with 2 warm slots for 4: %v, want the count named", err)
	}
}
