package policies

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces"
)

// newVTCQ builds the named vtc or lcf Queue.
func newVTCQ(t *testing.T, name string, p Params) *vtcQueue {
	t.Helper()
	q, err := NewQueue(name, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q.(*vtcQueue)
}

// qUserReq is a Request of user u with in input and out output tokens.
func qUserReq(id, u string, at time.Duration, in, out int) *traces.Request {
	return &traces.Request{ID: id, User: u, Arrival: at, InputTokens: in, OutputTokens: out}
}

// qCounters returns the users' counters.
func qCounters(v *vtcQueue) map[string]float64 {
	out := map[string]float64{}
	for n, u := range v.users {
		out[n] = u.counter
	}
	return out
}

func TestVTCCounterArithmetic(t *testing.T) {
	tests := []struct {
		name    string
		p       Params
		streams []int // token chunks streamed before Done
		usage   int   // Outcome.OutputTokens
		want    float64
	}{
		// 1 × 100 in + 2 × (16 + 34) out = 200
		{"defaults, stream then usage", Params{}, []int{16}, 50, 200},
		// 100 + 2 × 50, all streamed; usage adds nothing more
		{"all streamed", Params{}, []int{30, 20}, 50, 200},
		// (1 × 100 + 2 × 50) / weight 2 = 100
		{"weight 2", Params{"weights": traces.ParamString("a=2")}, []int{50}, 50, 100},
		// 3 × 100 + 0.5 × 50 = 325
		{"w_in 3 w_out 0.5", Params{"w_in": traces.ParamFloat(3), "w_out": traces.ParamFloat(0.5)}, nil, 50, 325},
		// streamed past the usage count: streamed tokens stand, 100 + 2 × 60
		{"usage below streamed", Params{}, []int{60}, 50, 220},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVTCQ(t, "vtc", tc.p)
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
			v.Tokens(3*time.Second, r, 10) // after Done: ignored
			if got := v.users["a"].counter; math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("counter = %g, want %g", got, tc.want)
			}
		})
	}
}

func TestVTCLift(t *testing.T) {
	type step struct {
		user    string
		counter float64 // counter set before the arrival
	}
	tests := []struct {
		name    string
		backlog []step // users made backlogged first, with these counters
		arrive  step
		left    *step // last user whose queue emptied (nobody backlogged)
		vtc     float64
		lcf     float64
	}{
		// min over backlogged {500, 300} = 300 > 0
		{"lifted to the backlogged minimum", []step{{"a", 500}, {"c", 300}}, step{"b", 0}, nil, 300, 0},
		// max(800, 300) = 800: never lowered
		{"never lowered", []step{{"a", 500}, {"c", 300}}, step{"b", 800}, nil, 800, 800},
		// nobody backlogged: max(0, last leaver's 400)
		{"idle system: last leaver's counter", nil, step{"b", 0}, &step{"a", 400}, 400, 0},
		{"first user ever stays at 0", nil, step{"b", 0}, nil, 0, 0},
	}
	for _, tc := range tests {
		for _, name := range []string{"vtc", "lcf"} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				v := newVTCQ(t, name, nil)
				if tc.left != nil {
					v.user(tc.left.user).counter = tc.left.counter
					v.lastLeft = v.user(tc.left.user)
				}
				for i, s := range tc.backlog {
					v.user(s.user).counter = s.counter
					if err := v.Arrive(0, qUserReq("q"+s.user, s.user, time.Duration(i), 1, 1)); err != nil {
						t.Fatal(err)
					}
					v.user(s.user).counter = s.counter // the lift must not move pre-set counters here
				}
				v.user(tc.arrive.user).counter = tc.arrive.counter
				if err := v.Arrive(time.Second, qUserReq("x", tc.arrive.user, time.Second, 1, 1)); err != nil {
					t.Fatal(err)
				}
				want := tc.vtc
				if name == "lcf" {
					want = tc.lcf
				}
				if got := v.users[tc.arrive.user].counter; got != want {
					t.Errorf("counter after arrival = %g, want %g", got, want)
				}
			})
		}
	}
}

func TestVTCReleaseOrder(t *testing.T) {
	v := newVTCQ(t, "vtc", Params{"w_out": traces.ParamFloat(0)})
	// a's requests are 100 input tokens, b's 30: the smaller counter goes next
	for i, r := range []*traces.Request{
		qUserReq("a1", "a", 0, 100, 1), qUserReq("a2", "a", 1, 100, 1), qUserReq("a3", "a", 2, 100, 1),
		qUserReq("b1", "b", 3, 30, 1), qUserReq("b2", "b", 4, 30, 1), qUserReq("b3", "b", 5, 30, 1),
	} {
		if err := v.Arrive(time.Duration(i), r); err != nil {
			t.Fatal(err)
		}
	}
	// counters a 0, b 0 → tie, a's head arrived first → a1 (a 100)
	// then b1 (b 30), b2 (b 60), b3 (b 90), a2 (a 200), a3
	got := qIDs(v.Release(0, qState([]int{0}, nil), Capacity{}))
	want := []string{"a1@-1", "b1@-1", "b2@-1", "b3@-1", "a2@-1", "a3@-1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]float64{"a": 300, "b": 90}, qCounters(v)); d != "" {
		t.Errorf("counters (-want +got):\n%s", d)
	}
	if v.Len() != 0 || v.lastLeft.name != "a" {
		t.Errorf("Len %d, last leaver %q", v.Len(), v.lastLeft.name)
	}
}

func TestVTCCapacityAndEvents(t *testing.T) {
	v := newVTCQ(t, "vtc", Params{"event_interval": traces.ParamString("2s")})
	for i := range 4 {
		if err := v.Arrive(0, qUserReq("r"+string(rune('0'+i)), "u", 0, 10, 10)); err != nil {
			t.Fatal(err)
		}
	}
	// slots (2 − 1) + (2 − 2) = 1
	if got := len(v.Release(0, qState([]int{1, 2}, nil), Capacity{Requests: 2})); got != 1 {
		t.Errorf("released %d with one free slot", got)
	}
	ev := v.StateEvents(0)
	if len(ev) != 1 || ev[0].Source != "vtc" || ev[0].Values["counter:u"] != 10 || ev[0].Values["queued:u"] != 3 {
		t.Fatalf("events = %v", ev)
	}
	v.Release(time.Second, qState([]int{0}, nil), Capacity{Requests: 1})
	if ev := v.StateEvents(time.Second); ev != nil {
		t.Errorf("emitted within event_interval: %v", ev)
	}
	if ev := v.StateEvents(2 * time.Second); len(ev) != 1 || ev[0].Values["counter:u"] != 20 {
		t.Errorf("after the interval: %v", ev)
	}
	lcf := newVTCQ(t, "lcf", nil)
	lcf.Arrive(0, qUserReq("x", "", 0, 1, 1))
	if ev := lcf.StateEvents(0); len(ev) != 1 || ev[0].Source != "lcf" {
		t.Errorf("lcf events = %v", ev)
	}
}

func TestVTCParams(t *testing.T) {
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{"w_in": traces.ParamFloat(-1)}, "parameter w_in"},
		{Params{"w_out": traces.ParamString("x")}, "parameter w_out"},
		{Params{"weights": traces.ParamString("a")}, "parameter weights"},
		{Params{"event_interval": traces.ParamString("soon")}, "parameter event_interval"},
	} {
		for _, name := range []string{"vtc", "lcf"} {
			_, err := NewQueue(name, tc.p, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %v: error %v, want one containing %q", name, tc.p, err, tc.want)
			}
		}
	}
}
