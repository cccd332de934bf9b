package probe

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

func TestPinnedRecords(t *testing.T) {
	tests := []struct {
		slots int
		want  []int // the first two blocks' slots
	}{
		{3, []int{0, 1, 0, 2}},
		{4, []int{0, 1, 0, 2}},
		{16, []int{0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 4, 6, 8, 10, 12, 14}},
	}
	for _, tc := range tests {
		recs := pinnedRecords(tc.slots, 96, 3*len(tc.want), 1)
		for i, want := range tc.want {
			if recs[i].Slot != want {
				t.Fatalf("%d slots: record %d on slot %d, want %d", tc.slots, i, recs[i].Slot, want)
			}
			if recs[i].OutputTokens != slotsOutput || recs[i].InputTokens != ladderBlock {
				t.Fatalf("%d slots: record %d has %d in, %d out", tc.slots, i, recs[i].InputTokens, recs[i].OutputTokens)
			}
		}
	}
	if _, ok, _ := SlotsPhase(t.TempDir(), 2, 96, 8, 1); ok {
		t.Fatal("a 2-slot server got a pinned-slot phase: alternate slots need at least 3")
	}
}

// TestSlotsPhaseOnMock sends the pinned-slot phase to a mock answering
// as llama.cpp over loopback HTTP: every request must run on the slot
// its trace line names (id_slot sent, honoured and recorded back).
func TestSlotsPhaseOnMock(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Cache, cfg.MaxNumSeqs = engine.CachePerSlot, 4
	cfg.LlamaCpp = engine.LlamaCppConfig{SplitKV: true}
	fleet, err := mockserver.StartFleet(t.Context(), mockserver.FleetConfig{Replicas: 1, Host: "127.0.0.1",
		Options: mockserver.Options{Engine: cfg, Tokenizer: "whitespace", TimeScale: 0.1, Dialect: dialect.LlamaCpp}})
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	dir := t.TempDir()
	ph, ok, err := SlotsPhase(dir, 4, 96, 16, 1)
	if err != nil || !ok {
		t.Fatalf("SlotsPhase: %v %v", ok, err)
	}
	ps := Spec{Targets: fleet.URLs(), Dir: dir}
	probeDefaults(&ps)
	ps.Client.Dialect = dialect.LlamaCpp
	pr, file, err := probePhase(t.Context(), ps, ph, 1, 30*time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if pr.OK != 16 {
		t.Fatalf("%d of 16 requests served (%d failed, %d cancelled)", pr.OK, pr.Failed, pr.Canceled)
	}
	want := map[string]int{}
	for _, r := range pinnedRecords(4, 96, 16, 1) {
		want[r.ID] = r.Slot
	}
	rd, closer, err := results.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	n := 0
	for {
		r, _, err := rd.Next()
		if err != nil {
			break
		}
		if r == nil {
			continue
		}
		if r.Slot == nil || *r.Slot != want[r.ID] {
			t.Fatalf("request %s ran on slot %v, want %d", r.ID, r.Slot, want[r.ID])
		}
		n++
	}
	if n != 16 {
		t.Fatalf("%d results read, want 16", n)
	}
	b, _ := os.ReadFile(ph.Trace)
	if !strings.Contains(string(b), `"slot":2`) || ph.Format != traces.FormatNative {
		t.Fatalf("trace %s (format %q) pins nothing to slot 2", ph.Trace, ph.Format)
	}
}
