package sim_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/sim"
	"github.com/tracebench/tracebench/traces"
)

// TestClosedLoopSimulated checks the simulator as replay's TestClosedLoopAgainstMock checks a real-time Run: no early
// turn, and follow-ups hit their predecessor's prompt and answer (the
// simulated engine's own output, fed back), with the KV-event router's
// predicted hit equal to the engines'.
func TestClosedLoopSimulated(t *testing.T) {
	src, err := traces.NewWorkload("multi-turn", traces.Params{{Name: "requests", Value: traces.ParamInt(60)}, {Name: "rate", Value: traces.ParamFloat(40)}, {Name: "users", Value: traces.ParamInt(4)},
		{Name: "turns_min", Value: traces.ParamInt(3)}, {Name: "turns_max", Value: traces.ParamInt(4)}, {Name: "think", Value: traces.ParamDuration(20 * time.Millisecond)},
		{Name: "output_len", Value: traces.ParamInt(64)}, {Name: "first_len", Value: traces.ParamInt(64)}, {Name: "question_len", Value: traces.ParamInt(16)},
		{Name: "jitter", Value: traces.ParamFloat(0)}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := policies.NewRouter("precise-prefix", nil, rand.New(rand.NewPCG(1, 1)))
	q, _ := policies.NewQueue("fcfs", nil, nil)
	byID := map[string]*results.Result{}
	var predicted, cached int
	stop, err := sim.Run(context.Background(), sim.Options{Common: replay.Common{Source: src,
		Router: r, Queue: q, OnResult: func(res *results.Result) {
			byID[res.ID] = res
			predicted, cached = predicted+res.PredictedHitTokens, cached+res.CachedTokens
		}},
		Engines: []engine.Config{engine.DefaultConfig(), engine.DefaultConfig()}})
	if err != nil || stop.Reason != results.StopDone {
		t.Fatalf("simulate: %v, stop %+v", err, stop)
	}
	for _, res := range byID {
		if res.Turn == 0 {
			continue
		}
		prev := byID[res.Session+"-"+strconv.Itoa(res.Turn-1)]
		if res.Sent < prev.Done {
			t.Errorf("%s sent at %v before %s ended at %v", res.ID, res.Sent, prev.ID, prev.Done)
		}
		if want := (prev.PromptTokens + prev.CompletionTokens - 1) / 16 * 16; res.CachedTokens < want {
			t.Errorf("%s: %d cached tokens, want at least %d (the previous prompt and answer)", res.ID, res.CachedTokens, want)
		}
	}
	if predicted != cached {
		t.Errorf("precise-prefix predicted %d hit tokens, the engines served %d", predicted, cached)
	}
}
