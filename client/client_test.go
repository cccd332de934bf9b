package client

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestDoVLLMCapture replays vLLM's documented streaming format (captures
// in testdata/sse) through a loopback server, event by event on a virtual
// clock, and checks every measure of the Result.
func TestDoVLLMCapture(t *testing.T) {
	const step = 10 * time.Millisecond
	tests := []struct {
		name, file, api string
		want            results.Result
	}{
		{
			name: "chat role chunk, 8 tokens, finish chunk, usage chunk", file: "vllm_chat.sse", api: APIChat,
			want: results.Result{Sent: time.Millisecond, FirstToken: 2 * step, FirstOutput: 2 * step, Done: 12 * step, Chunks: 8,
				Gaps: []results.GapBin{{V: 10000, N: 7}}, TBTMax: step, Status: 200,
				PromptTokens: 1024, CompletionTokens: 8, CachedTokens: 512},
		},
		{
			name: "completions 5 tokens, finish on last token, usage chunk", file: "vllm_completions.sse",
			api: APICompletions,
			want: results.Result{Sent: time.Millisecond, FirstToken: step, FirstOutput: step, Done: 7 * step, Chunks: 5,
				Gaps: []results.GapBin{{V: 10000, N: 4}}, TBTMax: step, Status: 200,
				PromptTokens: 37, CompletionTokens: 5, CachedTokens: 32},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			events := readEvents(t, tc.file)
			srv, arrived, release := stepServer(t, events)
			c := New(Options{API: tc.api, Model: "m", Stream: true})
			defer c.Close()
			var clk vclock
			clk.set(time.Millisecond)
			ack := make(chan int, 1)
			var res results.Result
			req := &traces.Request{ID: "r1", Prompt: "hello", OutputTokens: 8}
			done := doAsync(context.Background(), c, srv.URL, req, &res, clk.now, func(n int) { ack <- n })
			<-arrived // Sent is stamped; the clock may move
			tokens := 0
			for i, ev := range events {
				clk.set(time.Duration(i+1) * step)
				release <- struct{}{}
				if isContent(t, ev) {
					tokens += <-ack
				}
			}
			waitDone(t, done, 10*time.Second)
			res.Headers = 0 // stamped while the clock moves; checked below
			if diff := cmp.Diff(tc.want, res); diff != "" {
				t.Errorf("Result mismatch (-want +got):\n%s", diff)
			}
			if tokens != tc.want.CompletionTokens {
				t.Errorf("onTokens total = %d, want %d", tokens, tc.want.CompletionTokens)
			}
			if got := res.TTFT(); got != tc.want.FirstToken {
				t.Errorf("TTFT = %v, want %v", got, tc.want.FirstToken)
			}
		})
	}
}
