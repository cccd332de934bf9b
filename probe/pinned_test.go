package probe

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
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
// as llama.cpp over loopback HTTP, through a proxy that reads each
// request body: every request must name the slot its trace line gives
// (id_slot), and the mock must serve them all.
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
	up, err := url.Parse(fleet.URLs()[0])
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var named []int // id_slot of each completion request, in arrival order
	proxy := httputil.NewSingleHostReverseProxy(up)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			b, _ := io.ReadAll(r.Body)
			var body struct {
				IDSlot *int `json:"id_slot"`
			}
			if json.Unmarshal(b, &body) == nil {
				mu.Lock()
				named = append(named, -1)
				if body.IDSlot != nil {
					named[len(named)-1] = *body.IDSlot
				}
				mu.Unlock()
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	ph, ok, err := SlotsPhase(dir, 4, 96, 16, 1)
	if err != nil || !ok {
		t.Fatalf("SlotsPhase: %v %v", ok, err)
	}
	ps := Spec{Targets: []string{srv.URL}, Dir: dir}
	probeDefaults(&ps)
	ps.Client.Dialect = dialect.LlamaCpp
	pr, file, err := probePhase(t.Context(), ps, ph, 1, 30*time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if pr.OK != 16 {
		t.Fatalf("%d of 16 requests served (%d failed, %d cancelled)", pr.OK, pr.Failed, pr.Canceled)
	}
	count := map[int]int{}
	for _, s := range named {
		count[s]++
	}
	want := map[int]int{}
	for _, r := range pinnedRecords(4, 96, 16, 1) {
		want[r.Slot]++
	}
	if !maps.Equal(count, want) {
		t.Fatalf("requests named slots %v (slot: count), want %v", count, want)
	}
	// The mock, as llama-server b7099, does not say the slot in its
	// OpenAI-compatible replies: the results file keeps the one named.
	slotOf := map[string]int{}
	for _, r := range pinnedRecords(4, 96, 16, 1) {
		slotOf[r.ID] = r.Slot
	}
	err = results.EachResult(file, nil, func(r *results.Result) error {
		if r.Slot == nil || *r.Slot != slotOf[r.ID] {
			t.Errorf("request %s: results file slot %v, want %d", r.ID, r.Slot, slotOf[r.ID])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ph.Format != traces.FormatNative {
		t.Fatalf("phase format %q, want native (the only one with a slot)", ph.Format)
	}
}
