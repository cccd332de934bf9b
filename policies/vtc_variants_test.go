package policies

import (
	"fmt"
	"github.com/tracebench/tracebench/traces"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestVTCVariantCharges works each variant's counter by hand for one
// Request of 100 input and 50 known output tokens (w_in 1, w_out 2).
func TestVTCVariantCharges(t *testing.T) {
	tests := []struct {
		queue   string
		p       Params
		streams []int
		usage   int
		want    float64
	}{
		// 100 + 2 × 50 at release; streamed and reported tokens change nothing.
		{"vtc-oracle", nil, []int{30}, 60, 200},
		// weight 2 halves it.
		{"vtc-oracle", Params{"weights": traces.ParamString("a=2")}, nil, 50, 100},
		// prediction exact (range 0): 200 at release; the 10 tokens past
		// the prediction add 2 each as they stream: 220.
		{"vtc-predict", Params{"predict_range": traces.ParamFloat(0)}, []int{30, 30}, 60, 220},
		// 40 produced of 50 predicted: the 10 over-charged are refunded at Done: 180.
		{"vtc-predict", Params{"predict_range": traces.ParamFloat(0)}, []int{40}, 40, 180},
		{"vtc-predict", Params{"predict_range": traces.ParamFloat(0)}, nil, 50, 200},
		// max-fair charges like vtc: 100 + 2 × (16 streamed + 34 reported).
		{"vtc-max-fair", nil, []int{16}, 50, 200},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %v %v %d", tc.queue, tc.p, tc.streams, tc.usage), func(t *testing.T) {
			v := newVTCQ(t, tc.queue, tc.p)
			r := qUserReq("r", "a", 0, 100, 50)
			if err := v.Arrive(0, r); err != nil {
				t.Fatal(err)
			}
			if rels := v.Release(0, qState([]int{0}, nil), Capacity{}); len(rels) != 1 {
				t.Fatalf("released %d", len(rels))
			}
			for _, n := range tc.streams {
				v.Tokens(time.Second, r, n)
			}
			v.Done(2*time.Second, r, Outcome{OutputTokens: tc.usage})
			if got := v.users["a"].counter; math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("counter = %g, want %g", got, tc.want)
			}
		})
	}
}

// TestVTCPredictError: predictions spread over [1-r, 1+r] × the known
// length, and once every Request is done the counter holds the actual
// tokens exactly.
func TestVTCPredictError(t *testing.T) {
	v := newVTCQ(t, "vtc-predict", Params{"predict_range": traces.ParamFloat(0.5)})
	lo, hi := math.MaxInt, 0
	for i := range 400 {
		r := qUserReq(fmt.Sprint(i), "a", 0, 100, 100)
		if err := v.Arrive(0, r); err != nil {
			t.Fatal(err)
		}
		v.Release(0, qState([]int{0}, nil), Capacity{})
		pred := v.counted[r].pred
		lo, hi = min(lo, pred), max(hi, pred)
		v.Done(time.Second, r, Outcome{OutputTokens: 100})
	}
	if lo < 50 || hi > 150 || lo > 60 || hi < 140 {
		t.Errorf("predictions span [%d, %d], want inside [50, 150] and reaching below 60 and above 140", lo, hi)
	}
	if got := v.users["a"].counter; got != 400*(100+2*100) {
		t.Errorf("counter %g after settling, want %d", got, 400*300)
	}
	if _, err := NewQueue("vtc-predict", Params{"predict_range": traces.ParamFloat(1.5)}, nil); err == nil {
		t.Error("predict_range 1.5 accepted")
	}
}

// TestVTCMaxFairLift works the virtual counter by hand against vtc's
// arrival lift. a releases a1 (100 in); b arrives while a2 waits; a1
// streams 5 tokens (a = 110). Next release: the newest in-flight Request
// is a1, so the virtual counter is 110 − (100 + 5) = 5 and b (0) is lifted
// to 5, then released (b = 5 + 10 = 15). vtc instead lifts b on arrival
// to the backlogged minimum, a's 100, and b ends at 110. With nothing in
// flight, max-fair lifts everyone to the largest counter.
func TestVTCMaxFairLift(t *testing.T) {
	for _, tc := range []struct {
		queue      string
		afterB     map[string]float64
		afterDrain map[string]float64
	}{
		{"vtc-max-fair", map[string]float64{"a": 110, "b": 15}, map[string]float64{"a": 220, "b": 120}},
		{"vtc", map[string]float64{"a": 110, "b": 110}, map[string]float64{"a": 220, "b": 110}},
	} {
		t.Run(tc.queue, func(t *testing.T) {
			v := newVTCQ(t, tc.queue, nil)
			one := func() []string { return qIDs(v.Release(0, qState([]int{0}, nil), Capacity{Requests: 1})) }
			a1, a2, b1 := qUserReq("a1", "a", 0, 100, 10), qUserReq("a2", "a", 1, 100, 10), qUserReq("b1", "b", 2, 10, 0)
			v.Arrive(0, a1)
			v.Arrive(1, a2)
			if got := one(); !cmp.Equal(got, []string{"a1@-1"}) {
				t.Fatalf("first release %v", got)
			}
			v.Arrive(2, b1)
			v.Tokens(3, a1, 5)
			if got := one(); !cmp.Equal(got, []string{"b1@-1"}) {
				t.Fatalf("second release %v, want b1", got)
			}
			if d := cmp.Diff(tc.afterB, qCounters(v)); d != "" {
				t.Errorf("counters after b1 (-want +got):\n%s", d)
			}
			v.Done(4, a1, Outcome{OutputTokens: 10}) // a = 100 + 2 × 10 = 120
			v.Done(4, b1, Outcome{})
			// max-fair: nothing in flight, b lifted to max(120, 15) = 120;
			// a2 released: a = 220.
			if got := one(); !cmp.Equal(got, []string{"a2@-1"}) {
				t.Fatalf("third release %v, want a2", got)
			}
			if d := cmp.Diff(tc.afterDrain, qCounters(v)); d != "" {
				t.Errorf("counters after a2 (-want +got):\n%s", d)
			}
		})
	}
}
