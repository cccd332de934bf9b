package policies

import (
	"github.com/tracebench/tracebench/traces"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRPMSlidingWindow(t *testing.T) {
	q, err := NewQueue("rpm", Params{"rpm": traces.ParamInt(2), "window": traces.ParamDuration(time.Minute)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := time.Second
	steps := []struct {
		user string
		at   time.Duration
		ok   bool
	}{
		{"a", 0, true},
		{"a", 10 * s, true},
		{"a", 20 * s, false}, // 2 admitted in (−40 s, 20 s]
		{"b", 20 * s, true},  // per user
		{"a", 60 * s, true},  // the 0 s admission left at 60 s: window is (0, 60]
		{"a", 61 * s, false}, // 10 s and 60 s still inside
		{"a", 70 * s, true},  // 10 s left
		{"", 70 * s, true},   // no user: the shared user ""
	}
	var got, want []bool
	for i, st := range steps {
		err := q.Arrive(st.at, qUserReq("r"+string(rune('0'+i)), st.user, st.at, 1, 1))
		got = append(got, err == nil)
		want = append(want, st.ok)
		if err != nil && !strings.Contains(err.Error(), `user "a" is over its limit of 2 requests per 1m0s`) {
			t.Errorf("step %d: error %q", i, err)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("admitted (-want +got):\n%s", d)
	}
	if q.Len() != 6 {
		t.Errorf("Len = %d, want 6 admitted", q.Len())
	}
	// released first come, first served, under the capacity
	rels := q.Release(70*s, qState([]int{0}, nil), Capacity{Requests: 4})
	if d := cmp.Diff([]string{"r0@-1", "r1@-1", "r3@-1", "r4@-1"}, qIDs(rels)); d != "" {
		t.Errorf("released (-want +got):\n%s", d)
	}
	ev := q.(StateReporter).StateEvents(70 * s)
	wantEv := map[string]float64{"admitted:a": 4, "rejected:a": 2, "admitted:b": 1, "rejected:b": 0, "admitted:": 1, "rejected:": 0}
	if len(ev) != 1 || ev[0].Source != "rpm" {
		t.Fatalf("events = %v", ev)
	}
	if d := cmp.Diff(wantEv, ev[0].Values); d != "" {
		t.Errorf("event values (-want +got):\n%s", d)
	}
}

func TestRPMParams(t *testing.T) {
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{"rpm": traces.ParamInt(0)}, "parameter rpm"},
		{Params{"window": traces.ParamDuration(0)}, "parameter window"},
		{Params{"event_interval": traces.ParamString("-1")}, "parameter event_interval"},
	} {
		_, err := NewQueue("rpm", tc.p, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.p, err, tc.want)
		}
	}
}
