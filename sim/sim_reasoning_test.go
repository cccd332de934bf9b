package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestSimulateReasoning: simulated engines whose profile makes 40 % of
// requests reason (mean 15 tokens) set the Result fields the client
// sets against a real server: reasoning tokens as a share of the
// output, a first output token after the first token for those that
// answered, none for those whose reasoning reached max_tokens; and the
// engines decode every reasoning token (the total output is the trace's).
func TestSimulateReasoning(t *testing.T) {
	r, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(3, 4)))
	q, _ := policies.NewQueue("fcfs", nil, nil)
	cfgs := []engine.Config{engine.DefaultConfig(), engine.DefaultConfig()}
	for i := range cfgs {
		cfgs[i].Reasoning = engine.ReasoningConfig{Share: 0.4, MeanTokens: 15, CV: 0.5}
	}
	var got []*results.Result
	stop, err := Run(context.Background(), Options{Common: replay.Common{Source: traces.NewSliceSource(simWorkload()),
		Router: r, Queue: q, OnResult: func(r *results.Result) { got = append(got, r) }}, Engines: cfgs})
	if err != nil || stop.Reason != "done" {
		t.Fatalf("stop %q, %v", stop.Reason, err)
	}
	reasoned, stuck, reasoningTokens, output := 0, 0, 0, 0
	for _, r := range got {
		if !r.OK() || r.CompletionTokens != r.OutputTokens || r.ReasoningTokens > r.CompletionTokens {
			t.Fatalf("bad result %+v", r)
		}
		output += r.CompletionTokens
		reasoningTokens += r.ReasoningTokens
		switch {
		case r.ReasoningTokens == 0:
			if r.FirstOutput != r.FirstToken {
				t.Fatalf("request %s did not reason but its first output %v is not its first token %v", r.ID, r.FirstOutput, r.FirstToken)
			}
		case r.ReasoningTokens == r.CompletionTokens:
			stuck++
			if !r.NoOutput() {
				t.Fatalf("request %s reasoned to max_tokens but has a first output at %v", r.ID, r.FirstOutput)
			}
		default:
			reasoned++
			if r.FirstOutput <= r.FirstToken || r.TTFOT() <= r.TTFT() {
				t.Fatalf("request %s: first token %v, first output %v", r.ID, r.FirstToken, r.FirstOutput)
			}
		}
	}
	if share := float64(reasoned+stuck) / float64(len(got)); math.Abs(share-0.4) > 0.12 {
		t.Errorf("%d of %d requests reasoned: want about 40 %%", reasoned+stuck, len(got))
	}
	if reasoned == 0 {
		t.Errorf("no request both reasoned and answered")
	}
	if reasoningTokens == 0 || reasoningTokens >= output {
		t.Errorf("reasoning tokens %d of %d output tokens", reasoningTokens, output)
	}
}
