package engine

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// LoRAConfig is how the engine serves LoRA adapters, after vLLM's
// --max-loras and --max-cpu-loras. The zero value turns the limits off:
// any number of adapters run together and loading one costs nothing
// (the engine's behaviour before adapters were modelled).
type LoRAConfig struct {
	// MaxLoras is the most distinct adapters in the running batch (vLLM
	// --max-loras, default 1 there when LoRA is enabled). A waiting request
	// whose adapter is not running while MaxLoras adapters are is skipped
	// for the step, as vLLM V1's scheduler skips it. 0: no limit.
	MaxLoras int
	// MaxCPULoras is the most adapters kept in host memory (vLLM
	// --max-cpu-loras, default MaxLoras); an adapter outside it is read
	// from disk when it is next loaded. 0: MaxLoras.
	MaxCPULoras int
	// LoadCost is the time added to the step that admits a request whose
	// adapter is not in a GPU slot (copying it in from host memory).
	LoadCost time.Duration
	// DiskLoadCost is the extra time when the adapter is not in host
	// memory either.
	DiskLoadCost time.Duration
}

// validate reports the first invalid field.
func (c LoRAConfig) validate() error {
	if err := cmp.Or(
		atLeast(engineConfig, "LoRA.MaxLoras", c.MaxLoras, 0),
		atLeast(engineConfig, "LoRA.MaxCPULoras", c.MaxCPULoras, 0),
	); err != nil {
		return err
	}
	switch {
	case c.MaxLoras > 0 && c.MaxCPULoras > 0 && c.MaxCPULoras < c.MaxLoras:
		return fmt.Errorf("engine config: LoRA.MaxCPULoras %d: want ≥ MaxLoras %d (vLLM's rule)", c.MaxCPULoras, c.MaxLoras)
	case c.LoadCost < 0 || c.DiskLoadCost < 0:
		return fmt.Errorf("engine config: LoRA load costs %v, %v: want ≥ 0", c.LoadCost, c.DiskLoadCost)
	}
	return nil
}

// loraState tracks the adapters in GPU slots and in host memory, each
// most recently used last.
type loraState struct {
	cfg   LoRAConfig
	gpu   []string
	cpu   []string
	loads int64 // adapters loaded into a GPU slot
	disk  int64 // of which read from disk
}

// blocked reports whether a request for adapter may not join a batch
// already running the adapters in running.
func (l *loraState) blocked(adapter string, running map[string]int) bool {
	if adapter == "" || l.cfg.MaxLoras == 0 || running[adapter] > 0 {
		return false
	}
	return len(running) >= l.cfg.MaxLoras
}

// load makes adapter resident for an admission and returns its cost. A
// GPU slot is taken from the least recently used adapter that is not
// running (there is one: the scheduler admits a new adapter only below
// MaxLoras running ones).
func (l *loraState) load(adapter string, running map[string]int) time.Duration {
	if adapter == "" || l.cfg.MaxLoras == 0 {
		return 0
	}
	if i := slices.Index(l.gpu, adapter); i >= 0 {
		l.gpu = append(append(l.gpu[:i], l.gpu[i+1:]...), adapter)
		return 0
	}
	if len(l.gpu) >= l.cfg.MaxLoras {
		for i, a := range l.gpu {
			if running[a] == 0 {
				l.gpu = append(l.gpu[:i], l.gpu[i+1:]...)
				break
			}
		}
	}
	l.gpu = append(l.gpu, adapter)
	l.loads++
	cost := l.cfg.LoadCost
	if i := slices.Index(l.cpu, adapter); i >= 0 {
		l.cpu = append(l.cpu[:i], l.cpu[i+1:]...)
	} else {
		cost += l.cfg.DiskLoadCost
		l.disk++
		if limit := max(l.cfg.MaxCPULoras, l.cfg.MaxLoras); len(l.cpu) >= limit {
			l.cpu = l.cpu[1:]
		}
	}
	l.cpu = append(l.cpu, adapter)
	return cost
}

// LoRAStats is the adapter part of Stats.
type LoRAStats struct {
	// MaxLoras is Config.LoRA.MaxLoras (0: no limit).
	MaxLoras int
	// Running and Waiting are the distinct adapters of running and of
	// waiting requests, sorted (vllm:lora_requests_info's
	// running_lora_adapters and waiting_lora_adapters).
	Running, Waiting []string
	// Loads counts adapters loaded into a GPU slot, DiskLoads those of
	// them read from disk.
	Loads, DiskLoads int64
}

// loraStats snapshots the adapters.
func (e *Engine) loraStats() LoRAStats {
	st := LoRAStats{MaxLoras: e.cfg.LoRA.MaxLoras, Loads: e.lora.loads, DiskLoads: e.lora.disk}
	st.Running = adapterNames(e.running)
	st.Waiting = adapterNames(e.waiting)
	return st
}

// adapterNames returns the distinct adapters of seqs, sorted.
func adapterNames(seqs []*seq) []string {
	var out []string
	for _, s := range seqs {
		if a := s.req.LoRA; a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}
