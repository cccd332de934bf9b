package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestClientReadsMockReasoning runs the Client against the bundled mock
// over loopback HTTP with a profile whose every request reasons for 4
// tokens: chat (reasoning_content deltas), completions with
// ReasoningTags (<think> text), the Responses API streamed and not, and
// a request whose 3 output tokens are all reasoning. Each Result has the
// reasoning tokens, a first output token after the first token (none for
// the last), and the server's token counts.
func TestClientReadsMockReasoning(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Latency = cfg.Latency.Scaled(0.1)
	cfg.Reasoning = engine.ReasoningConfig{Share: 1, MeanTokens: 4}
	for _, d := range []string{dialect.VLLM, dialect.SGLang} {
		base := startMockWith(t, mockserver.Options{TimeScale: 0.05, Engine: cfg, Dialect: d})
		dl, _ := dialect.Lookup(d)
		tests := []struct {
			name      string
			opts      client.Options
			out       int
			reasoning int
			answers   bool
		}{
			{"chat", client.Options{API: client.APIChat, Stream: true}, 7, 4, true},
			{"completions with tags", client.Options{Stream: true, ReasoningTags: true}, 7, 4, true},
			{"responses", client.Options{API: client.APIResponses, Stream: true}, 7, 4, true},
			{"responses not streamed", client.Options{API: client.APIResponses}, 7, 4, true},
			{"chat, reasoning to the end", client.Options{API: client.APIChat, Stream: true}, 3, 3, false},
		}
		for _, tc := range tests {
			t.Run(d+"/"+tc.name, func(t *testing.T) {
				tc.opts.Dialect, tc.opts.Model = dl, "mock-model"
				c := client.New(tc.opts)
				defer c.Close()
				start := time.Now()
				var res results.Result
				c.Do(context.Background(), base, &traces.Request{ID: "r", Prompt: "why is the sky blue", OutputTokens: tc.out},
					&res, func() time.Duration { return time.Since(start) + time.Nanosecond }, nil)
				if !res.OK() {
					t.Fatalf("%s: %s", res.ErrClass, res.Err)
				}
				if res.CompletionTokens != tc.out || res.ReasoningTokens != tc.reasoning {
					t.Errorf("completion %d, reasoning %d tokens: want %d and %d", res.CompletionTokens, res.ReasoningTokens,
						tc.out, tc.reasoning)
				}
				streamed := tc.opts.Stream
				switch {
				case !tc.answers && (res.FirstOutput != 0 || !res.NoOutput()):
					t.Errorf("first output at %v: want none, the stream never left its reasoning", res.FirstOutput)
				case tc.answers && streamed && !(res.FirstOutput > res.FirstToken):
					t.Errorf("first token %v, first output %v: want the answer after the reasoning", res.FirstToken, res.FirstOutput)
				case tc.answers && !streamed && res.FirstOutput != res.FirstToken:
					t.Errorf("not streamed: first output %v, want the response's time %v", res.FirstOutput, res.FirstToken)
				}
			})
		}
	}
}
