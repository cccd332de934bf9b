package calibrate

import (
	"fmt"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// WarmState replays earlier runs on the same servers (results files, in
// their start order, on one clock) through engines of cfg, and returns
// the per-slot cache state each backend index was left with: the state a
// later run on those servers started from. prompts rebuilds each file's
// prompts. cfg must use the per-slot cache.
func WarmState(cfg engine.Config, files []string, prompts Prompts) ([]*engine.SlotState, error) {
	if cfg.Cache != engine.CachePerSlot {
		return nil, fmt.Errorf("warm start: the profile's cache is %q: only the per-slot cache (llama.cpp) keeps state between runs", cfg.Cache)
	}
	sets, _, err := loadReplay(files, prompts)
	if err != nil {
		return nil, fmt.Errorf("warm start: %w", err)
	}
	out := make([]*engine.SlotState, len(sets))
	for i, set := range sets {
		e, err := engine.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("warm start: %w", err)
		}
		if _, err := runSet(e, set); err != nil {
			return nil, fmt.Errorf("warm start: backend %d: %w", i, err)
		}
		out[i] = e.SlotState()
	}
	return out, nil
}
