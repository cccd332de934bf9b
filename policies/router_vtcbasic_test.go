package policies

import (
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func userReq(user string) *traces.Request {
	return &traces.Request{ID: "r-" + user, User: user, Prompt: "hi", InputTokens: 1}
}

// charge records a completed Request of user with in and out tokens.
func charge(r Router, now time.Duration, user string, in, out int) {
	r.(Feedback).Done(now, userReq(user), Outcome{PromptTokens: in, OutputTokens: out})
}

func TestVTCBasic(t *testing.T) {
	noJitter := Params{"jitter": traces.ParamFloat(0)}
	tests := []struct {
		name    string
		params  Params
		charges func(r Router)
		user    string
		now     time.Duration
		bs      []Backend
		want    int
	}{
		// No tokens: position 0; fairness |i-0| = 0,1,2; idle: b0.
		{"new user goes to position 0", noJitter, func(Router) {}, "a", 0, fleet(0, 0, 0), 0},
		// a: 1000*1 + 1000*2 = 3000, the only user: min = max = 3000,
		// bucket max(1000, 3000) = 3000, position 3000/3000 = 1: b1.
		{"single user position 1", noJitter, func(r Router) { charge(r, 0, "a", 1000, 1000) }, "a", time.Second, fleet(0, 0, 0), 1},
		// a 3000, b 9000: bucket max(1000, (3000+9000)/2) = 6000;
		// b: 9000/6000 = 1.5, fairness 1.5, .5, .5; loads {0,0,20}: util
		// 0, 0, .2; scores 1.5, .5, .7: b1.
		{"heavy user between positions, load breaks the tie", noJitter, func(r Router) {
			charge(r, 0, "a", 1000, 1000)
			charge(r, 0, "b", 3000, 3000)
		}, "b", time.Second, fleet(0, 0, 20), 1},
		// a: 3000/6000 = .5: fairness .5, .5, 1.5; loads {10,0,0}: util
		// .1, 0, 0; scores .6, .5, 1.5: b1.
		{"light user", noJitter, func(r Router) {
			charge(r, 0, "a", 1000, 1000)
			charge(r, 0, "b", 3000, 3000)
		}, "a", time.Second, fleet(10, 0, 0), 1},
		// a 1000, b 100000: bucket (1000+100000)/2 = 50500; b: 1.98 -> clamp
		// to n-1 = 1 with two backends: fairness 1, 0: b1.
		{"position clamped to n-1", noJitter, func(r Router) {
			charge(r, 0, "a", 1000, 0)
			charge(r, 0, "b", 100000, 0)
		}, "b", time.Second, fleet(0, 0), 1},
		// fairness weight .5, user at 0: b0 = 0 + 1*min(150/100, 1) = 1;
		// b1 = .5*1 + 0 = .5: the idle backend wins over position.
		{"utilisation outweighs fairness", Params{"jitter": traces.ParamFloat(0), "fairness_weight": traces.ParamFloat(0.5)}, func(Router) {}, "a", 0, fleet(150, 0, 0), 1},
		// Tokens charged at t=0 leave the 5-minute window at 5m01s: back to
		// position 0.
		{"window expiry", noJitter, func(r Router) { charge(r, 0, "a", 1000, 1000) }, "a", 5*time.Minute + time.Second, fleet(0, 0, 0), 0},
		// Inside the window (4m59s) the 3000 tokens still count: b1.
		{"inside window", noJitter, func(r Router) { charge(r, 0, "a", 1000, 1000) }, "a", 4*time.Minute + 59*time.Second, fleet(0, 0, 0), 1},
		// time_unit seconds, window 5: at 6 s the charge has expired.
		{"seconds unit", Params{"jitter": traces.ParamFloat(0), "time_unit": traces.ParamString("seconds")}, func(r Router) { charge(r, 0, "a", 1000, 1000) }, "a", 6 * time.Second, fleet(0, 0, 0), 0},
		// weights 1/0: 3000 in + 5000 out counts 3000 -> position 1.
		{"output weight 0", Params{"jitter": traces.ParamFloat(0), "output_token_weight": traces.ParamFloat(0)}, func(r Router) { charge(r, 0, "a", 3000, 5000) }, "a", time.Second, fleet(0, 0, 0), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRouter(t, "vtc-basic", tc.params, 1)
			tc.charges(r)
			ch := mustPick(t, r, userReq(tc.user), State{Now: tc.now, Backends: tc.bs})
			if ch.Backend != tc.want || ch.Reason != "vtc" {
				t.Errorf("pick %+v, want backend %d by vtc", ch, tc.want)
			}
		})
	}
}

func TestVTCBasicNoUserIsRandom(t *testing.T) {
	r := mustRouter(t, "vtc-basic", nil, 1)
	seen := map[int]bool{}
	for i := 0; i < 200; i++ {
		ch := mustPick(t, r, &traces.Request{ID: "x"}, State{Backends: fleet(0, 0, 0)})
		if ch.Reason != "no-user" {
			t.Fatalf("reason %q, want no-user", ch.Reason)
		}
		seen[ch.Backend] = true
	}
	if len(seen) != 3 {
		t.Errorf("requests without a user reached %d of 3 backends", len(seen))
	}
}

func TestVTCBasicParams(t *testing.T) {
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{"time_unit": traces.ParamString("hours")}, "parameter time_unit"},
		{Params{"window_size": traces.ParamInt(0)}, "parameter window_size"},
		{Params{"min_tokens": traces.ParamFloat(5000), "max_tokens": traces.ParamFloat(100)}, "parameter max_tokens"},
		{Params{"max_pod_load": traces.ParamFloat(0)}, "parameter max_pod_load"},
		{Params{"jitter": traces.ParamFloat(-1)}, "parameter jitter"},
	} {
		_, err := NewRouter("vtc-basic", tc.p, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.p, err, tc.want)
		}
	}
	t.Setenv("AIBRIX_ROUTER_VTC_TOKEN_TRACKER_MIN_TOKENS", "6000")
	t.Setenv("AIBRIX_ROUTER_VTC_BASIC_OUTPUT_TOKEN_WEIGHT", "0")
	r := mustRouter(t, "vtc-basic", Params{"jitter": traces.ParamFloat(0)}, 1)
	charge(r, 0, "a", 3000, 9999)
	// min_tokens 6000 from the environment: bucket max(6000, 3000) = 6000,
	// position 3000/6000 = .5: fairness .5, .5, 1.5, first lowest b0.
	if ch := mustPick(t, r, userReq("a"), State{Backends: fleet(0, 0, 0)}); ch.Backend != 0 {
		t.Errorf("environment ignored: %+v", ch)
	}
}

// TestVTCBasicOracleCharge: with charge=oracle a pick charges the user
// input + 2 × known output at once, and completion charges nothing more.
// a's first pick (1000 in, 1000 out) charges 3000: a alone, bucket 3000,
// position 1 for its second pick; completions reporting other counts
// change nothing. With charge=completion the same picks leave a at 0
// (nothing completed yet): position 0.
func TestVTCBasicOracleCharge(t *testing.T) {
	req := &traces.Request{ID: "a1", User: "a", Prompt: "hi", InputTokens: 1000, OutputTokens: 1000}
	for _, tc := range []struct {
		charge string
		want   int
	}{{"oracle", 1}, {"completion", 0}} {
		t.Run(tc.charge, func(t *testing.T) {
			r := mustRouter(t, "vtc-basic", Params{"jitter": traces.ParamFloat(0), "charge": traces.ParamString(tc.charge)}, 1)
			mustPick(t, r, req, State{Now: 0, Backends: fleet(0, 0, 0)})
			if tc.charge == "oracle" {
				charge(r, 0, "a", 50000, 50000) // ignored under oracle
			}
			if got := mustPick(t, r, req, State{Now: time.Second, Backends: fleet(0, 0, 0)}).Backend; got != tc.want {
				t.Errorf("second pick went to %d, want %d", got, tc.want)
			}
		})
	}
	if _, err := NewRouter("vtc-basic", Params{"charge": traces.ParamString("later")}, nil); err == nil {
		t.Error("charge=later accepted")
	}
}
