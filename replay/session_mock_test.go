package replay_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestClosedLoopAgainstMock replays multi-turn sessions against the
// bundled mock over loopback HTTP. Closed-loop, no turn leaves before
// the turn it follows has finished; with the server's answers fed back,
// a follow-up's cached prefix covers the previous turn's prompt and its
// answer (less the last partial block), which the trace's invented
// answers cannot give.
func TestClosedLoopAgainstMock(t *testing.T) {
	for _, tc := range []struct {
		name      string
		api       string
		sessions  replay.Sessions
		wantEarly bool // some turn left before its predecessor ended
		wantFed   bool // follow-ups hit the previous answer
	}{
		{"closed, completions", client.APICompletions, replay.Sessions{}, false, true},
		{"closed, chat", client.APIChat, replay.Sessions{}, false, true},
		{"closed, responses", client.APIResponses, replay.Sessions{}, false, true},
		{"closed, no feedback", client.APICompletions, replay.Sessions{NoFeedBack: true}, false, false},
		{"open", client.APICompletions, replay.Sessions{Mode: replay.SessionsOpen}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A fresh server each: no run may find another's blocks.
			base := startMockWith(t, mockserver.Options{TimeScale: 0.05})
			src, err := traces.NewWorkload("multi-turn", traces.Params{{Name: "requests", Value: traces.ParamInt(24)}, {Name: "rate", Value: traces.ParamFloat(40)}, {Name: "users", Value: traces.ParamInt(2)},
				{Name: "turns_min", Value: traces.ParamInt(3)}, {Name: "turns_max", Value: traces.ParamInt(4)}, {Name: "think", Value: traces.ParamDuration(20 * time.Millisecond)},
				{Name: "output_len", Value: traces.ParamInt(64)}, {Name: "first_len", Value: traces.ParamInt(64)}, {Name: "question_len", Value: traces.ParamInt(16)},
				{Name: "jitter", Value: traces.ParamFloat(0)}}, 5)
			if err != nil {
				t.Fatal(err)
			}
			r, _ := policies.NewRouter("session-affinity", nil, rand.New(rand.NewPCG(1, 1)))
			q, _ := policies.NewQueue("fcfs", nil, nil)
			c := client.New(client.Options{API: tc.api, Stream: true, Model: mockserver.DefaultModelName,
				FirstByteTimeout: 10 * time.Second, IdleTimeout: 10 * time.Second})
			defer c.Close()
			byID := map[string]*results.Result{}
			stop, err := replay.Run(context.Background(), replay.Options{Common: replay.Common{Source: src,
				Router: r, Queue: q, Sessions: tc.sessions,
				OnResult: func(res *results.Result) { byID[res.ID] = res }},
				Backends: []string{base}, Client: c})
			if err != nil || stop.Reason != results.StopDone {
				t.Fatalf("run: %v, stop %+v", err, stop)
			}
			early, fed, follow := 0, 0, 0
			for _, res := range byID {
				if !res.OK() {
					t.Fatalf("%s failed: %s %s", res.ID, res.ErrClass, res.Err)
				}
				if res.Turn == 0 {
					continue
				}
				prev := byID[res.Session+"-"+strconv.Itoa(res.Turn-1)]
				follow++
				if res.Sent < prev.Done {
					early++
				}
				// The mock's blocks are 16 tokens: every full block of
				// prompt + answer but its last token (sampled, never
				// computed) is reusable.
				if res.CachedTokens >= (prev.PromptTokens+prev.CompletionTokens-1)/16*16 {
					fed++
				}
			}
			t.Logf("%d follow-ups: %d sent early, %d hit the previous answer", follow, early, fed)
			if (early > 0) != tc.wantEarly {
				t.Errorf("%d of %d follow-ups sent before their predecessor ended; want early %v", early, follow, tc.wantEarly)
			}
			if tc.wantFed && fed != follow {
				t.Errorf("%d of %d follow-ups hit the previous turn's prompt and answer; want all", fed, follow)
			}
			if !tc.wantFed && fed == follow {
				t.Errorf("every follow-up hit the previous answer though the trace's answers were sent")
			}
		})
	}
}
