package policies

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func sessReq(id, session, user string) *traces.Request {
	return &traces.Request{ID: id, Session: session, User: user, Prompt: "turn " + id, InputTokens: 2}
}

func TestSessionAffinityKeys(t *testing.T) {
	r := mustRouter(t, "session-affinity", nil, 1)
	st := State{Backends: fleet(0, 0, 0, 0, 0, 0, 0, 0)}
	pick := func(req *traces.Request) int { return mustPick(t, r, req, st).Backend }
	tests := []struct {
		name string
		a, b *traces.Request
		same bool
	}{
		{"same session, different users", sessReq("1", "s1", "u1"), sessReq("2", "s1", "u2"), true},
		{"no session: same user", sessReq("1", "", "u7"), sessReq("2", "", "u7"), true},
		{"session beats user", sessReq("1", "s1", "u1"), sessReq("2", "", "s1"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := pick(tc.a) == pick(tc.b); got != tc.same {
				t.Errorf("same backend = %v, want %v", got, tc.same)
			}
		})
	}
	used := map[int]int{}
	for i := 0; i < 400; i++ {
		used[pick(sessReq(fmt.Sprint(i), fmt.Sprint("s", i), ""))]++
	}
	// 400 sessions over 8 backends: 50 each on average; rendezvous hashing
	// should put at least half of that on every backend.
	for b := 0; b < 8; b++ {
		if used[b] < 25 {
			t.Errorf("backend %d got %d of 400 sessions (%v)", b, used[b], used)
		}
	}
}

func TestSessionAffinityRemovalAndErrors(t *testing.T) {
	r := mustRouter(t, "session-affinity", Params{"cooldown": traces.ParamDuration(30 * time.Second)}, 1)
	fb := r.(Feedback)
	all := fleet(0, 0, 0, 0, 0)
	without := append(append([]Backend{}, all[:2]...), all[3:]...)
	home := map[string]int{}
	for i := 0; i < 100; i++ {
		s := fmt.Sprint("s", i)
		home[s] = mustPick(t, r, sessReq(s, s, ""), State{Backends: all}).Backend
	}
	t.Run("removal moves only the removed backend's keys", func(t *testing.T) {
		for s, h := range home {
			got := mustPick(t, r, sessReq(s, s, ""), State{Backends: without}).Backend
			if h != 2 && got != h {
				t.Errorf("session %s moved %d -> %d although only b2 left", s, h, got)
			}
		}
	})
	t.Run("an error moves only the failed backend's keys for cooldown", func(t *testing.T) {
		fb.Done(10*time.Second, sessReq("x", "x", ""), Outcome{Backend: 3, Failed: true})
		for s, h := range home {
			at := func(now time.Duration) Choice {
				return mustPick(t, r, sessReq(s, s, ""), State{Now: now, Backends: all})
			}
			during, after := at(20*time.Second), at(41*time.Second)
			if h == 3 && (during.Backend == 3 || during.Reason != "failover") {
				t.Errorf("session %s stayed on failed b3 during cooldown: %+v", s, during)
			}
			if h != 3 && during.Backend != h {
				t.Errorf("session %s moved %d -> %d during b3's cooldown", s, h, during.Backend)
			}
			if after.Backend != h || after.Reason != "affinity" {
				t.Errorf("session %s after cooldown: %+v, want home %d", s, after, h)
			}
		}
	})
	t.Run("all backends cooling down keeps affinity", func(t *testing.T) {
		for i := range all {
			fb.Done(100*time.Second, nil, Outcome{Backend: i, Failed: true})
		}
		ch := mustPick(t, r, sessReq("s1", "s1", ""), State{Now: 101 * time.Second, Backends: all})
		if ch.Backend != home["s1"] || ch.Reason != "affinity" {
			t.Errorf("pick %+v, want home %d", ch, home["s1"])
		}
	})
}

func TestSessionAffinityPredictsHits(t *testing.T) {
	r := PredictHits(mustRouter(t, "session-affinity", nil, 1))
	st := State{Backends: fleet(0, 0, 0)}
	turn1 := &traces.Request{ID: "1", Session: "c", Prompt: strings.Repeat("a", 128), InputTokens: 32}
	turn2 := &traces.Request{ID: "2", Session: "c", Prompt: strings.Repeat("a", 128) + strings.Repeat("b", 128), InputTokens: 64}
	mustPick(t, r, turn1, st)
	// turn 2 re-sends turn 1's 128 characters (2 chunks of 64) = half of
	// its 256 characters = 32 of its 64 tokens.
	if ch := mustPick(t, r, turn2, st); ch.PredictedHitTokens != 32 {
		t.Errorf("turn 2 predicted %d hit tokens, want 32", ch.PredictedHitTokens)
	}
	if _, err := NewRouter("session-affinity", Params{"cooldown": traces.ParamString("soon")}, nil); err == nil || !strings.Contains(err.Error(), "parameter cooldown") {
		t.Errorf("bad cooldown error: %v", err)
	}
}
