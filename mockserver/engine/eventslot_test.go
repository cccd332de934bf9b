package engine

import (
	"testing"
	"time"
)

// TestEventSlot: under the per-slot cache every admission and token
// event names the slot holding the request (a pinned one its own slot),
// with and without llama.cpp's server loop; the paged cache names none
// (−1).
func TestEventSlot(t *testing.T) {
	paged := DefaultConfig()
	tests := []struct {
		name string
		cfg  Config
		pins map[string]int // requests pinned to a slot; the others any
		none bool           // no slots: every event says −1
	}{
		{"per-slot, pinned", llamaConfig(LlamaCppConfig{}), map[string]int{"a": 2, "b": 0}, false},
		{"per-slot, server loop", llamaConfig(LlamaCppConfig{SaveFixed: time.Millisecond}), map[string]int{"a": 3}, false},
		{"paged", paged, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range []string{"a", "b", "c"} {
				r := &Request{ID: id, Prompt: tokensFrom(1000*(i+1), 20), MaxTokens: 3}
				if k, ok := tc.pins[id]; ok {
					r.Slot = pin(k)
				}
				if err := e.Add(0, r); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[string]int{}
			for now := time.Duration(0); !e.Idle(); {
				st := e.Step(now)
				now = st.End()
				for _, ev := range st.Events {
					if !ev.Admitted && !ev.HasToken {
						continue
					}
					checkEventSlot(t, ev, tc.none, tc.pins, seen)
				}
			}
			if len(seen) != 3 && !tc.none {
				t.Errorf("slots seen for %v, want all 3 requests", seen)
			}
		})
	}
}

// checkEventSlot checks one admission or token event's slot against the
// request's pin and its earlier events (seen).
func checkEventSlot(t *testing.T, ev Event, none bool, pins map[string]int, seen map[string]int) {
	t.Helper()
	if none {
		if ev.Slot != -1 {
			t.Fatalf("paged cache: event %+v names slot %d, want -1", ev, ev.Slot)
		}
		return
	}
	if ev.Slot < 0 || ev.Slot > 3 {
		t.Fatalf("event %+v: slot %d, want 0..3", ev, ev.Slot)
	}
	if k, ok := pins[ev.ID]; ok && ev.Slot != k {
		t.Fatalf("request %s pinned to slot %d: event names slot %d", ev.ID, k, ev.Slot)
	}
	if k, ok := seen[ev.ID]; ok && k != ev.Slot {
		t.Fatalf("request %s moved from slot %d to %d", ev.ID, k, ev.Slot)
	}
	seen[ev.ID] = ev.Slot
}
