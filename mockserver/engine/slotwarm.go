package engine

import (
	"fmt"
	"slices"
)

// SlotState is what a per-slot cache holds between runs of one server:
// each slot's tokens in slot order with their least-recently-used order,
// and the host prompt cache's entries, oldest first. A simulation that
// starts from it starts where an earlier run on the same llama-server
// left off (warm slots and host cache) instead of from empty slots, as
// the measured server did. Take it with Engine.SlotState, give it as
// Config.WarmSlots.
type SlotState struct {
	// Slots is each slot's state, by slot id.
	Slots []SlotHeld
	// Host is the host prompt cache's entries, oldest first.
	Host []SlotHeld
}

// SlotHeld is the tokens a slot or host cache entry holds, with the
// cache salt they were computed under and, for a slot, the logical time
// of its last release (−1: never used; a larger one is more recent).
type SlotHeld struct {
	Tokens   []int32
	Salt     uint64
	LastUsed int64
}

// SlotState returns a copy of the per-slot cache's state (nil when the
// engine has no per-slot cache). Busy slots are taken as they hold now.
func (e *Engine) SlotState() *SlotState {
	if e.slots == nil {
		return nil
	}
	st := &SlotState{}
	for _, s := range e.slots.slots {
		st.Slots = append(st.Slots, SlotHeld{Tokens: slices.Clone(s.tokens), Salt: s.salt, LastUsed: s.lastUsed})
	}
	for _, h := range e.slots.host {
		st.Host = append(st.Host, SlotHeld{Tokens: slices.Clone(h.tokens), Salt: h.salt})
	}
	return st
}

// validate reports a state that does not fit a cache of n slots.
func (st *SlotState) validate(n int) error {
	if len(st.Slots) != n {
		return fmt.Errorf("engine config: WarmSlots has %d slots: want MaxNumSeqs %d", len(st.Slots), n)
	}
	return nil
}

// warm loads st into the cache (copied), dropping the oldest host
// entries beyond the cache's capacity.
func (c *slotCache) warm(st *SlotState) {
	for i, h := range st.Slots {
		c.slots[i] = slot{tokens: slices.Clone(h.Tokens), salt: h.Salt, lastUsed: h.LastUsed}
		c.tick = max(c.tick, h.LastUsed)
	}
	if c.hostCap == 0 {
		return
	}
	for _, h := range st.Host {
		c.save(h.Tokens, h.Salt)
	}
}
