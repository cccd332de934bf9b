package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLoRAMaxLorasAndLoadCost works the adapter scheduling by hand with
// max_loras 1, a 10 ms load from host memory and 50 ms more from disk,
// and one host-memory slot: requests a1 (adapter a), b1 (b), a2 (a)
// arrive together. Step 1 admits a1 and a2 (b1 is skipped: a is running
// and the one slot is taken) and loads a from disk (+60 ms). When a's
// requests finish, b1 runs and b is loaded from disk (+60 ms), evicting a
// from host memory; a3 afterwards reloads a from disk.
func TestLoRAMaxLorasAndLoadCost(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Latency = LinearLatency()
	cfg.LoRA = LoRAConfig{MaxLoras: 1, MaxCPULoras: 1, LoadCost: 10 * time.Millisecond, DiskLoadCost: 50 * time.Millisecond}
	e := mustNew(t, cfg)
	add := func(now time.Duration, id, lora string) {
		t.Helper()
		if err := e.Add(now, &Request{ID: id, Prompt: prompt(20, len(id)+int(id[1])), MaxTokens: 2, IgnoreEOS: true, LoRA: lora}); err != nil {
			t.Fatal(err)
		}
	}
	add(0, "a1", "a")
	add(0, "b1", "b")
	add(0, "a2", "a")
	st := e.Step(0)
	if got := admitted(st); !cmp.Equal(got, []string{"a1", "a2"}) {
		t.Fatalf("step 1 admitted %v, want a1 a2 (b1 skipped)", got)
	}
	beta := LinearLatency().Beta
	if st.Duration != beta+60*time.Millisecond {
		t.Fatalf("step 1 took %v, want β %v + 60 ms of adapter load", st.Duration, beta)
	}
	ls := e.Stats().LoRA
	if d := cmp.Diff(LoRAStats{MaxLoras: 1, Running: []string{"a"}, Waiting: []string{"b"}, Loads: 1, DiskLoads: 1}, ls); d != "" {
		t.Fatalf("stats after step 1 (-want +got):\n%s", d)
	}
	now := st.End()
	var order []string
	for i := 0; i < 20 && !e.Idle(); i++ {
		st = e.Step(now)
		order = append(order, admitted(st)...)
		now = st.End()
	}
	if !cmp.Equal(order, []string{"b1"}) {
		t.Fatalf("later admissions %v, want b1", order)
	}
	add(now, "a3", "a")
	st = e.Step(now)
	if st.Duration != beta+60*time.Millisecond {
		t.Fatalf("a3's step took %v: a was evicted from host memory by b, want a disk load", st.Duration)
	}
	if ls := e.Stats().LoRA; ls.Loads != 3 || ls.DiskLoads != 3 {
		t.Fatalf("loads %d, disk %d; want 3 and 3", ls.Loads, ls.DiskLoads)
	}
}

// TestLoRANoLimits: the zero LoRAConfig admits every adapter at once at
// no cost (the engine's behaviour without adapters).
func TestLoRANoLimits(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Latency = LinearLatency()
	e := mustNew(t, cfg)
	for i := range 4 {
		if err := e.Add(0, &Request{ID: fmt.Sprint(i), Prompt: prompt(20, i), MaxTokens: 1, IgnoreEOS: true, LoRA: fmt.Sprint("l", i)}); err != nil {
			t.Fatal(err)
		}
	}
	st := e.Step(0)
	if len(admitted(st)) != 4 || st.Duration != LinearLatency().Beta {
		t.Fatalf("admitted %v in %v, want all 4 in β", admitted(st), st.Duration)
	}
	bad := DefaultConfig()
	bad.LoRA = LoRAConfig{MaxLoras: 4, MaxCPULoras: 2}
	if err := bad.Validate(); err == nil {
		t.Error("max_cpu_loras below max_loras accepted")
	}
}

func admitted(st Step) []string {
	var out []string
	for _, ev := range st.Events {
		if ev.Admitted {
			out = append(out, ev.ID)
		}
	}
	return out
}
