package policies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/traces"
)

// chwblHome returns the backend chwbl picks for req with nothing in flight.
func chwblHome(t *testing.T, p Params, req *traces.Request, bs []Backend) int {
	t.Helper()
	r := mustRouter(t, "chwbl", p, 1)
	ch := mustPick(t, r, req, State{Backends: bs})
	if ch.Reason != "hash" {
		t.Fatalf("idle pick reason %q, want hash", ch.Reason)
	}
	return ch.Backend
}

// loadsWith returns n in-flight counts: home gets h, the others o.
func loadsWith(n, home, h, o int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = o
	}
	out[home] = h
	return out
}

func TestCHWBLBoundedLoad(t *testing.T) {
	req := textReq("r", strings.Repeat("system prompt ", 20)+"question", 50)
	home := chwblHome(t, nil, req, fleet(0, 0, 0, 0))
	tests := []struct {
		name     string
		params   Params
		home     int // in-flight of the home backend
		others   int // in-flight of each other backend
		wantHome bool
	}{
		// total 3+3*2 = 9, bound 1.25*(9+1)/4 = 3.125; 3 <= 3.125: home.
		{"under bound stays home", nil, 3, 2, true},
		// kubeai-code: 3+1 = 4 > 3.125 overflows; the next has 2+1 <= 3.125.
		{"kubeai-code counts the new request", Params{"preset": traces.ParamString("kubeai-code")}, 3, 2, false},
		// total 3+3*1 = 6, bound 1.25*7/4 = 2.1875; 3 > 2.1875: overflow.
		{"over bound overflows", nil, 3, 1, false},
		// total 0: bound 1.25*1/4 = 0.3125; 0 <= 0.3125: home.
		{"idle fleet stays home", nil, 0, 0, true},
		// kubeai-code with nothing in flight accepts home (total == 0).
		{"kubeai-code idle stays home", Params{"preset": traces.ParamString("kubeai-code")}, 0, 0, true},
		// load_factor 3: total 4+3*1 = 7, bound 3*8/4 = 6 >= 4: home.
		{"larger load factor tolerates more", Params{"load_factor": traces.ParamFloat(3)}, 4, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRouter(t, "chwbl", tc.params, 1)
			ch := mustPick(t, r, req, State{Backends: fleet(loadsWith(4, home, tc.home, tc.others)...)})
			if got := ch.Backend == home; got != tc.wantHome {
				t.Errorf("pick %+v (home %d): at home = %v, want %v", ch, home, got, tc.wantHome)
			}
			if !tc.wantHome && ch.Reason != "overflow" {
				t.Errorf("reason %q, want overflow", ch.Reason)
			}
		})
	}
}

func TestCHWBLKeyUsesPrefixOnly(t *testing.T) {
	bs := fleet(0, 0, 0, 0, 0, 0, 0, 0)
	base := strings.Repeat("x", 100)
	a := chwblHome(t, nil, textReq("a", base+"tail one", 10), bs)
	b := chwblHome(t, nil, textReq("b", base+"a different tail", 10), bs)
	if a != b {
		t.Errorf("same first 100 characters went to %d and %d", a, b)
	}
	chat := &traces.Request{ID: "c", Messages: []traces.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: base + "!"}}}
	if c := chwblHome(t, nil, chat, bs); c != a {
		t.Errorf("chat keyed on the first user message went to %d, prompt to %d", c, a)
	}
	lora := textReq("l", base, 10)
	spread := map[int]bool{}
	for i := 0; i < 16; i++ {
		lora.LoRA = fmt.Sprintf("adapter-%d", i)
		spread[chwblHome(t, nil, lora, bs)] = true
	}
	if len(spread) < 2 {
		t.Errorf("16 adapters with one prompt all hashed to one backend: the adapter is not in the key")
	}
}

func TestCHWBLRemovalMovesOnlyItsKeys(t *testing.T) {
	r := mustRouter(t, "chwbl", nil, 1)
	all := fleet(0, 0, 0, 0, 0)
	without := append(append([]Backend{}, all[:2]...), all[3:]...) // b2 removed
	moved := 0
	for i := 0; i < 200; i++ {
		req := textReq(fmt.Sprint(i), fmt.Sprintf("conversation %d", i), 5)
		before := mustPick(t, r, req, State{Backends: all}).Backend
		after := mustPick(t, r, req, State{Backends: without}).Backend
		if before != 2 && after != before {
			t.Errorf("key %d moved from %d to %d although b2 was removed", i, before, after)
		}
		if before == 2 {
			moved++
		}
	}
	if moved == 0 {
		t.Errorf("no key lived on b2; the test proves nothing")
	}
}

func TestCHWBLPredictsHits(t *testing.T) {
	r := PredictHits(mustRouter(t, "chwbl", nil, 1))
	bs := fleet(0, 0, 0)
	// 128 tokens of block ids: 8 blocks of 16 tokens for the hit model.
	first := mustPick(t, r, blockReq("1", 64, 128, 1, 2), State{Backends: bs})
	second := mustPick(t, r, blockReq("2", 64, 128, 1, 2), State{Backends: bs})
	if first.PredictedHitTokens != 0 || second.PredictedHitTokens != 128 || second.Backend != first.Backend {
		t.Errorf("picks %+v then %+v, want cold then 128 hit tokens on the same backend", first, second)
	}
}

func TestCHWBLParamErrors(t *testing.T) {
	for _, tc := range []struct{ k, v string }{{"prefix_chars", "0"}, {"replication", "x"}, {"load_factor", "0.5"}, {"count_new_request", "maybe"}} {
		_, err := NewRouter("chwbl", Params{tc.k: ReadValue(KindRouter, tc.k, tc.v)}, nil)
		if err == nil || !strings.Contains(err.Error(), "parameter "+tc.k) {
			t.Errorf("%s=%s: error %v, want one naming the parameter", tc.k, tc.v, err)
		}
	}
}

func TestCHWBLAllOverBoundTakesHome(t *testing.T) {
	req := textReq("r", "hello", 2)
	home := chwblHome(t, nil, req, fleet(0, 0, 0, 0))
	r := mustRouter(t, "chwbl", Params{"preset": traces.ParamString("kubeai-code")}, 1)
	// kubeai-code, all at 2: total 8, bound 1.25*9/4 = 2.8125 and every
	// backend has 2+1 = 3 > 2.8125, so KubeAI's default (the key's first
	// backend on the ring) is taken.
	ch := mustPick(t, r, req, State{Backends: fleet(2, 2, 2, 2)})
	if ch.Backend != home || ch.Reason != "default" {
		t.Errorf("pick %+v, want home %d with reason default", ch, home)
	}
}
