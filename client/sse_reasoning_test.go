package client

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
)

// reasoningWant is what a reasoning capture must give.
type reasoningWant struct {
	first, output  time.Duration // FirstToken, FirstOutput (ms of the 1 ms-per-event clock)
	chunks         int
	reasoning      int
	completion     int
	prompt, cached int
	noCached       bool
	noOutput       bool
}

// TestConsumeSSEReasoning parses streams of reasoning models in the
// shapes vLLM (both field names), SGLang and llama.cpp send (see the
// comment heading each capture for its source), event by event on a
// 1 ms-per-event virtual clock: the first token counts reasoning, the
// first output token does not, and reasoning tokens come from usage
// when the server reports them, else from the reasoning chunks.
func TestConsumeSSEReasoning(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		file, dialect string
		api           string
		tags          bool
		want          reasoningWant
	}{
		{"vllm_chat_reasoning_content.sse", dialect.VLLM, APIChat, false,
			reasoningWant{first: 2 * ms, output: 5 * ms, chunks: 5, reasoning: 3, completion: 6, prompt: 14, noCached: true}},
		{"vllm_chat_reasoning.sse", dialect.VLLM, APIChat, false,
			reasoningWant{first: 2 * ms, output: 7 * ms, chunks: 7, reasoning: 5, completion: 8, prompt: 20, noCached: true}},
		{"sglang_chat_reasoning.sse", dialect.SGLang, APIChat, false,
			reasoningWant{first: 2 * ms, output: 5 * ms, chunks: 4, reasoning: 4, completion: 5, prompt: 11, noCached: true}},
		{"llamacpp_chat_reasoning.sse", dialect.LlamaCpp, APIChat, false,
			reasoningWant{first: 2 * ms, output: 5 * ms, chunks: 5, reasoning: 3, completion: 5, prompt: 1085, cached: 1024}},
		{"vllm_chat_reasoning_only.sse", dialect.VLLM, APIChat, false,
			reasoningWant{first: 2 * ms, output: 0, chunks: 4, reasoning: 4, completion: 4, prompt: 14, noCached: true, noOutput: true}},
		{"vllm_completions_think_tags.sse", dialect.VLLM, APICompletions, true,
			reasoningWant{first: ms, output: 6 * ms, chunks: 8, reasoning: 5, completion: 8, prompt: 9, noCached: true}},
		// Without the option the tags are output like any text.
		{"vllm_completions_think_tags.sse", dialect.VLLM, APICompletions, false,
			reasoningWant{first: ms, output: ms, chunks: 8, reasoning: 0, completion: 8, prompt: 9, noCached: true}},
		{"vllm_chat_r1_no_parser.sse", dialect.VLLM, APIChat, true,
			reasoningWant{first: 2 * ms, output: 6 * ms, chunks: 6, reasoning: 4, completion: 6, noCached: true}},
		{"vllm_responses.sse", dialect.VLLM, APIResponses, false,
			reasoningWant{first: 5 * ms, output: 13 * ms, chunks: 5, reasoning: 4, completion: 7, prompt: 13}},
	}
	for _, tc := range tests {
		name := tc.file
		if tc.tags {
			name += "/tags"
		}
		t.Run(name, func(t *testing.T) {
			var clk vclock
			var readers []io.Reader
			for _, ev := range readEvents(t, tc.file) {
				readers = append(readers, &tickReader{r: strings.NewReader(string(ev)), clk: &clk})
			}
			var res results.Result
			st := &tokenStats{res: &res, now: clk.now, responses: tc.api == APIResponses}
			st.d, _ = dialect.Lookup(tc.dialect)
			if tc.tags {
				st.tags = &thinkTags{}
			}
			if err := consumeSSE(io.MultiReader(readers...), st); err != nil {
				t.Fatalf("consumeSSE: %v", err)
			}
			st.close()
			w := tc.want
			got := reasoningWant{first: res.FirstToken, output: res.FirstOutput, chunks: res.Chunks,
				reasoning: res.ReasoningTokens, completion: res.CompletionTokens, prompt: res.PromptTokens,
				cached: res.CachedTokens, noCached: res.NoCached, noOutput: res.NoOutput()}
			if got != w {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			if w.output > 0 && res.TTFOT() != w.output {
				t.Errorf("TTFOT = %v, want %v", res.TTFOT(), w.output)
			}
		})
	}
}

// TestReasoningTokensFromUsage checks which count wins: the usage's
// figure when it is above 0 or nothing streamed as reasoning, else the
// streamed count (a usage 0 beside streamed reasoning is SGLang's
// unsummed figure).
func TestReasoningTokensFromUsage(t *testing.T) {
	tests := []struct {
		name            string
		streamed, usage int
		usageKnown      bool
		want            int
	}{
		{"no usage figure", 3, 0, false, 3},
		{"usage figure wins", 3, 5, true, 5},
		{"usage 0 beside streamed reasoning", 3, 0, true, 3},
		{"usage 0, nothing streamed", 0, 0, true, 0},
		{"usage only", 0, 7, true, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tokenStats{reasoning: tc.streamed, usageReason: tc.usage, usageReasonOK: tc.usageKnown}
			if got := s.reasoningTokens(); got != tc.want {
				t.Fatalf("reasoningTokens = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestReadUsageReasoning reads the reasoning figure where each server
// puts it.
func TestReadUsageReasoning(t *testing.T) {
	tests := []struct {
		name, body string
		want       int
		known      bool
	}{
		{"OpenAI details", `{"usage":{"prompt_tokens":3,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":6}}}`, 6, true},
		{"SGLang top level", `{"usage":{"prompt_tokens":3,"completion_tokens":9,"reasoning_tokens":4}}`, 4, true},
		{"details win", `{"usage":{"completion_tokens":9,"reasoning_tokens":4,"completion_tokens_details":{"reasoning_tokens":6}}}`, 6, true},
		{"details without the figure", `{"usage":{"completion_tokens":9,"completion_tokens_details":{"audio_tokens":0}}}`, 0, false},
		{"details null", `{"usage":{"completion_tokens":9,"completion_tokens_details":null,"reasoning_tokens":null}}`, 0, false},
		{"none", `{"usage":{"completion_tokens":9}}`, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := ReadUsage([]byte(tc.body), nil)
			if err != nil {
				t.Fatal(err)
			}
			if u.Reasoning != tc.want || u.ReasoningKnown != tc.known {
				t.Fatalf("reasoning %d (known %v), want %d (known %v)", u.Reasoning, u.ReasoningKnown, tc.want, tc.known)
			}
		})
	}
}
