package policies

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces"
)

// newMB builds a multi-bin Queue through the registry.
func newMB(t *testing.T, p Params) *multiBin {
	t.Helper()
	q, err := NewQueue("multi-bin", p, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	return q.(*multiBin)
}

// arriveOut files Requests with the given output lengths (10 input tokens).
func arriveOut(t *testing.T, q Queue, outs ...int) []*traces.Request {
	t.Helper()
	var rs []*traces.Request
	for i, o := range outs {
		r := &traces.Request{ID: "o" + strconv.Itoa(o) + "-" + strconv.Itoa(i), InputTokens: 10, OutputTokens: o}
		if err := q.Arrive(0, r); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

func TestMultiBinParams(t *testing.T) {
	tests := []struct {
		p    Params
		want string
	}{
		{Params{"k": traces.ParamInt(0)}, "parameter k"},
		{Params{"mode": traces.ParamString("eager")}, "parameter mode"},
		{Params{"bin_select": traces.ParamString("random")}, "parameter bin_select"},
		{Params{"predictor": traces.ParamString("psychic")}, "parameter predictor"},
		{Params{"bucket_p": traces.ParamFloat(1.5)}, "parameter bucket_p"},
		{Params{"boundaries": traces.ParamString("80,42")}, "parameter boundaries: item 2 (42) is not above item 1 (80)"},
		{Params{"boundaries": traces.ParamString("0")}, "parameter boundaries"},
		{Params{"m_model_gb": traces.ParamFloat(12)}, "parameter m_model_gb"},
		{Params{"b_min": traces.ParamInt(9), "b_max": traces.ParamInt(8)}, "parameter b_max: 8 is below b_min 9"},
		{Params{"bin_b_max": traces.ParamString("8,8")}, "parameter bin_b_max: 2 limits given for 4 bins"},
		{Params{"d_sla": traces.ParamString("soon")}, "parameter d_sla"},
		{Params{"eps_d": traces.ParamString("-1")}, "parameter eps_d"},
		{Params{"warmup_requests": traces.ParamInt(3)}, "parameter warmup_requests: 3 is fewer than the 4 bins"},
		{Params{"kv_mem_per_token_gb": traces.ParamFloat(0)}, "parameter kv_mem_per_token_gb"},
		{Params{"bogus": traces.ParamString("1")}, "unknown parameter \"bogus\""},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			_, err := NewQueue("multi-bin", tc.p, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	t.Run("seed names as environment variables", func(t *testing.T) {
		t.Setenv("B_MAX", "8")
		t.Setenv("D_SLA", "0.02")
		m := newMB(t, nil)
		if m.cfg.BMax != 8 || m.cfg.DSLA != 20*time.Millisecond {
			t.Errorf("B_MAX %d D_SLA %v, want 8 and 20ms", m.cfg.BMax, m.cfg.DSLA)
		}
	})
	t.Run("boundaries set K", func(t *testing.T) {
		m := newMB(t, Params{"boundaries": traces.ParamString("42,80,167"), "bin_b_max": traces.ParamString("8,8,8,8")})
		want := []BinRange{{0, 42}, {42, 80}, {80, 167}, {167, 10000}}
		if d := cmp.Diff(want, m.bounds); d != "" {
			t.Errorf("bounds (-want +got):\n%s", d)
		}
	})
}

func TestMultiBinStaticRelease(t *testing.T) {
	m := newMB(t, Params{"boundaries": traces.ParamString("10"), "b_min": traces.ParamInt(2), "b_max": traces.ParamInt(2)})
	arriveOut(t, m, 5, 15, 6, 16, 7) // bin 0: 5 6 7; bin 1: 15 16
	// both backends idle: b0 takes bin 0 (round-robin from 0), b1 takes bin 1
	rels := m.Release(0, qState([]int{0, 0}, nil), Capacity{})
	if d := cmp.Diff([]string{"o5-0@0", "o6-2@0", "o15-1@1", "o16-3@1"}, qIDs(rels)); d != "" {
		t.Fatalf("first release (-want +got):\n%s", d)
	}
	if got := qIDs(m.Release(0, qState([]int{2, 2}, nil), Capacity{})); len(got) != 0 {
		t.Fatalf("static mode released %v to busy backends", got)
	}
	// the batch on b0 completes only with its last member
	m.Done(time.Second, rels[0].Req, Outcome{Backend: 0, PromptTokens: 10, OutputTokens: 5, TBT: 20 * time.Millisecond})
	if m.ctrl[0].updates != 0 {
		t.Fatal("controller updated before the batch finished")
	}
	m.Done(2*time.Second, rels[1].Req, Outcome{Backend: 0, PromptTokens: 10, OutputTokens: 6, TBT: 30 * time.Millisecond})
	// Algorithm 7: τ = 0.2 × mean(20, 30) ms = 5 ms; b_avg = 0.2 × 2; output 0.2 × 5.5
	k, s := m.ctrl[0], m.stats[0]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if k.updates != 1 || !near(k.tauAvg, 0.2*0.025) || !near(k.bAvg, 0.4) || !near(s.avgOutput, 0.2*5.5) {
		t.Errorf("after batch: updates %d τ %g b_avg %g avg_out %g", k.updates, k.tauAvg, k.bAvg, s.avgOutput)
	}
	if got := qIDs(m.Release(2*time.Second, qState([]int{0, 2}, nil), Capacity{})); !cmp.Equal(got, []string{"o7-4@0"}) {
		t.Errorf("second release = %v, want [o7-4@0]", got)
	}
	if m.Len() != 0 {
		t.Errorf("Len = %d after releasing everything", m.Len())
	}
}

func TestMultiBinLimits(t *testing.T) {
	tests := []struct {
		name     string
		p        Params
		inflight []int
		tokens   []int
		c        Capacity
		stats    mbStats
		want     int
	}{
		{"b_target 4 from B_MIN = B_MAX", Params{"b_min": traces.ParamInt(4), "b_max": traces.ParamInt(4)}, []int{0}, nil, Capacity{}, mbStats{}, 4},
		{"request capacity 3", Params{"b_min": traces.ParamInt(4), "b_max": traces.ParamInt(4)}, []int{0}, nil, Capacity{Requests: 3}, mbStats{}, 3},
		// each request is 10 + 30 = 40 tokens: 40, 80, 120 > 100
		{"token capacity 100", Params{"b_min": traces.ParamInt(4), "b_max": traces.ParamInt(4)}, []int{0}, nil, Capacity{Tokens: 100}, mbStats{}, 2},
		// η = (12 − 4) / 0.08 = 100 tokens, b_mem = ⌊90 / (10+10)⌋ = 4;
		// 40 + 40 tokens fit, the third makes 120 > η
		{"memory η 100 tokens", Params{"kv_mem_per_token_gb": traces.ParamFloat(0.08)}, []int{0}, nil, Capacity{}, mbStats{10, 10}, 2},
		// with no statistics b_mem = ⌊90 / 500⌋ = 0, clamped to B_MIN 1
		{"b_mem from 500 default tokens", Params{"kv_mem_per_token_gb": traces.ParamFloat(0.08)}, []int{0}, nil, Capacity{}, mbStats{}, 1},
		{"max_candidates 2", Params{"max_candidates": traces.ParamInt(2)}, []int{0}, nil, Capacity{}, mbStats{}, 2},
		// continuous: top up to b_target 4 with 3 in flight
		{"continuous top-up", Params{"b_min": traces.ParamInt(4), "b_max": traces.ParamInt(4), "mode": traces.ParamString("continuous")}, []int{3}, []int{120}, Capacity{}, mbStats{}, 1},
		{"continuous full", Params{"b_min": traces.ParamInt(4), "b_max": traces.ParamInt(4), "mode": traces.ParamString("continuous")}, []int{4}, []int{160}, Capacity{}, mbStats{}, 0},
		{"static busy", Params{"b_min": traces.ParamInt(4), "b_max": traces.ParamInt(4)}, []int{1}, []int{40}, Capacity{}, mbStats{}, 0},
		// η = 8 / 0.4 = 20 tokens, b_mem = ⌊18 / 2⌋ = 9, every request is 40 tokens:
		// an idle backend takes one oversized request rather than none
		{"oversized first member", Params{"kv_mem_per_token_gb": traces.ParamFloat(0.4)}, []int{0}, nil, Capacity{}, mbStats{1, 1}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.p["k"] = traces.ParamInt(1)
			m := newMB(t, tc.p)
			m.stats[0] = tc.stats
			arriveOut(t, m, 30, 30, 30, 30, 30, 30)
			rels := m.Release(0, qState(tc.inflight, tc.tokens), tc.c)
			if len(rels) != tc.want {
				t.Errorf("released %d, want %d", len(rels), tc.want)
			}
			if m.Len() != 6-len(rels) {
				t.Errorf("Len = %d, want %d", m.Len(), 6-len(rels))
			}
		})
	}
}

func TestMultiBinWarmup(t *testing.T) {
	m := newMB(t, Params{"k": traces.ParamInt(2), "warmup_requests": traces.ParamInt(4), "b_min": traces.ParamInt(8), "b_max": traces.ParamInt(8)})
	arriveOut(t, m, 40, 10, 30)
	if !m.warm() || m.bins[0].len() != 3 {
		t.Fatalf("warm-up: warm %v, %d in the one bin", m.warm(), m.bins[0].len())
	}
	ev := m.StateEvents(0)
	if len(ev) != 1 || ev[0].Values["warmup"] != 1 || ev[0].Values["bin0_hi"] != 10000 {
		t.Fatalf("warm-up event = %v", ev)
	}
	arriveOut(t, m, 20)
	// lengths 10 20 30 40: median at position 1.5 = 25 → [10,25) [25,10000)
	if d := cmp.Diff([]BinRange{{10, 25}, {25, 10000}}, m.bounds); d != "" {
		t.Fatalf("bounds (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{2, 2}, m.lens()); d != "" {
		t.Errorf("re-filed bins (-want +got):\n%s", d)
	}
	got := qIDs(m.Release(0, qState([]int{0}, nil), Capacity{}))
	if d := cmp.Diff([]string{"o10-1@0", "o20-0@0"}, got); d != "" {
		t.Errorf("first batch from bin 0 in FIFO order (-want +got):\n%s", d)
	}
}

func TestMultiBinStateEvents(t *testing.T) {
	m := newMB(t, Params{"boundaries": traces.ParamString("10"), "b_min": traces.ParamInt(2), "b_max": traces.ParamInt(4), "event_interval": traces.ParamString("1s")})
	ev := m.StateEvents(0)
	if len(ev) != 1 || ev[0].Source != "multi-bin" {
		t.Fatalf("first poll = %v", ev)
	}
	want := map[string]float64{"k": 2, "warmup": 0, "bin0_lo": 0, "bin0_hi": 10, "bin1_lo": 10, "bin1_hi": 10000,
		"bin0_b_mem": 4, "bin0_b_sla": 3, "bin0_b_target": 3, "bin0_b_low": 2, "bin0_b_high": 4, "bin0_queued": 0}
	for k, v := range want {
		if got, ok := ev[0].Values[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if ev := m.StateEvents(0); ev != nil {
		t.Errorf("unchanged state emitted %v", ev)
	}
	arriveOut(t, m, 5)
	m.Release(0, qState([]int{0}, nil), Capacity{})
	if ev := m.StateEvents(500 * time.Millisecond); ev != nil {
		t.Errorf("emitted inside event_interval: %v", ev)
	}
	if ev := m.StateEvents(time.Second); len(ev) != 1 {
		t.Errorf("no event after a batch and the interval")
	}
}

func TestLengthPredictors(t *testing.T) {
	bounds := []BinRange{{0, 10}, {10, 20}, {20, 10000}}
	rng := rand.New(rand.NewPCG(1, 1))
	r := &traces.Request{OutputTokens: 15}
	oracle := lengthPredictor{kind: predOracle, rng: rng}
	oracle.predict(r, bounds)
	if r.PredictedOutput != 15 {
		t.Errorf("oracle predicted %d", r.PredictedOutput)
	}
	right := lengthPredictor{kind: predBucket, p: 1, rng: rng}
	right.predict(r, bounds)
	if r.PredictedOutput != 15 {
		t.Errorf("bucket p=1 predicted %d", r.PredictedOutput)
	}
	wrong := lengthPredictor{kind: predBucket, p: 0, rng: rng}
	seen := map[int]bool{}
	for range 100 {
		wrong.predict(r, bounds)
		seen[r.PredictedOutput] = true
	}
	// bin 1 → bin 0 (nearest length 9) or bin 2 (nearest length 20)
	if d := cmp.Diff(map[int]bool{9: true, 20: true}, seen); d != "" {
		t.Errorf("bucket p=0 predictions (-want +got):\n%s", d)
	}
	noisy := lengthPredictor{kind: predNoisy, sigma: 0.5, rng: rand.New(rand.NewPCG(1, 1))}
	r.OutputTokens = 1000
	var below int
	for range 1000 {
		noisy.predict(r, nil)
		if r.PredictedOutput < 1000 {
			below++
		}
	}
	// exp(σZ) has median 1: about half the predictions fall below the truth
	if below < 430 || below > 570 {
		t.Errorf("noisy predictor: %d of 1000 below the true length", below)
	}
}

// TestMultiBinBinSelection: Algorithm 5 through the Queue's bin_select
// parameter. Bins 0: 5; 1: 15 16 17 (cuts 10). One idle backend, batch 2:
// round-robin serves bin 0 first (cursor at 0), longest-queue serves bin 1
// (3 waiting > 1).
func TestMultiBinBinSelection(t *testing.T) {
	tests := []struct {
		sel  string
		want []string
	}{
		{"round-robin", []string{"o5-0@0"}},
		{"longest-queue", []string{"o15-1@0", "o16-2@0"}},
	}
	for _, tc := range tests {
		t.Run(tc.sel, func(t *testing.T) {
			m := newMB(t, Params{"boundaries": traces.ParamString("10"), "b_min": traces.ParamInt(2), "b_max": traces.ParamInt(2), "bin_select": traces.ParamString(tc.sel)})
			arriveOut(t, m, 5, 15, 16, 17)
			if d := cmp.Diff(tc.want, qIDs(m.Release(0, qState([]int{0}, nil), Capacity{}))); d != "" {
				t.Errorf("first batch (-want +got):\n%s", d)
			}
		})
	}
}
