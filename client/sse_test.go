package client

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
)

// sseEvent is one parsed event, for comparisons.
type sseEvent struct{ Type, Data string }

// readAllEvents parses r to its end.
func readAllEvents(r io.Reader) ([]sseEvent, error) {
	rd := newSSEReader(r)
	var out []sseEvent
	for {
		typ, data, err := rd.Next()
		if err != nil {
			return out, err
		}
		out = append(out, sseEvent{string(typ), string(data)})
	}
}

func TestSSEReader(t *testing.T) {
	big := strings.Repeat("y", 40<<10) // longer than the read buffer
	tests := []struct {
		name, in string
		want     []sseEvent
		wantErr  error
	}{
		{"two events", "data: a\n\ndata: b\n\n", []sseEvent{{"", "a"}, {"", "b"}}, io.EOF},
		{"no space after colon", "data:a\n\n", []sseEvent{{"", "a"}}, io.EOF},
		{"only one space stripped", "data:  a\n\n", []sseEvent{{"", " a"}}, io.EOF},
		{"multi-line data", "data: {\"a\":\ndata: 1}\n\n", []sseEvent{{"", "{\"a\":\n1}"}}, io.EOF},
		{"CRLF", "data: a\r\n\r\n", []sseEvent{{"", "a"}}, io.EOF},
		{"comments and keep-alives", ": ping\n\n\n\n: x\ndata: a\n\n", []sseEvent{{"", "a"}}, io.EOF},
		{"event type, id, retry, unknown", "event: error\nid: 1\nretry: 5\nfoo: bar\nfoo\ndata: boom\n\n",
			[]sseEvent{{"error", "boom"}}, io.EOF},
		{"type resets after event", "event: x\ndata: a\n\ndata: b\n\n", []sseEvent{{"x", "a"}, {"", "b"}}, io.EOF},
		{"empty data line dispatches", "data:\n\n", []sseEvent{{"", ""}}, io.EOF},
		{"event without data is dropped", "event: ping\n\ndata: a\n\n", []sseEvent{{"", "a"}}, io.EOF},
		{"long line", "data: " + big + "\n\n", []sseEvent{{"", big}}, io.EOF},
		{"unterminated line", "data: a\n\ndata: b", []sseEvent{{"", "a"}}, errSSETruncated},
		{"unterminated event", "data: a\n\ndata: b\n", []sseEvent{{"", "a"}}, errSSETruncated},
		{"oversized event", strings.Repeat("data: "+big+"\n", 30) + "\n", nil, errSSETooLarge},
		{"oversized line", "data: " + strings.Repeat("z", maxSSEEvent+1) + "\n\n", nil, errSSETooLarge},
		{"empty", "", nil, io.EOF},
	}
	for _, tc := range tests {
		for _, split := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{{"whole", func(r io.Reader) io.Reader { return r }}, {"byte by byte", iotest.OneByteReader},
			{"half reads", iotest.HalfReader}} {
			t.Run(tc.name+"/"+split.name, func(t *testing.T) {
				got, err := readAllEvents(split.wrap(strings.NewReader(tc.in)))
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("end error = %v, want %v", err, tc.wantErr)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("events mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSSEReaderPassesReadErrors(t *testing.T) {
	cut := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(cut))
	got, err := readAllEvents(r)
	if !errors.Is(err, cut) {
		t.Fatalf("end error = %v, want %v", err, cut)
	}
	if diff := cmp.Diff([]sseEvent{{"", "a"}}, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
}

func TestRound2(t *testing.T) {
	tests := []struct{ in, want int64 }{
		{-5, 0}, {0, 0}, {7, 7}, {99, 99}, {100, 100}, {104, 100}, {105, 110}, {995, 1000},
		{12345, 12000}, {12500, 13000}, {9_950_000, 10_000_000},
	}
	for _, tc := range tests {
		if got := round2(tc.in); got != tc.want {
			t.Errorf("round2(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
	// The fast paths per magnitude agree with the general rule around
	// every power of ten and on a sweep of values.
	ref := func(v int64) int64 {
		if v < 100 {
			return max(v, 0)
		}
		p := int64(1)
		for v/p >= 100 {
			p *= 10
		}
		return (v + p/2) / p * p
	}
	var vs []int64
	for p := int64(10); p <= 1e9; p *= 10 {
		for d := int64(-6); d <= 6; d++ {
			vs = append(vs, p+d, p/2+d, 95*p/10+d)
		}
	}
	for v := int64(0); v < 3_000_000; v += 997 {
		vs = append(vs, v)
	}
	for _, v := range vs {
		if got, want := round2(v), ref(v); got != want {
			t.Fatalf("round2(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestGapBins(t *testing.T) {
	var g gapBins
	for _, us := range []int64{12000, 5, 12400, 300, 5, 11950, 299} {
		g.add(time.Duration(us) * time.Microsecond)
	}
	want := []results.GapBin{{V: 5, N: 2}, {V: 300, N: 2}, {V: 12000, N: 3}}
	if diff := cmp.Diff(want, g.bins()); diff != "" {
		t.Errorf("bins mismatch (-want +got):\n%s", diff)
	}
	if (gapBins{}).bins() != nil {
		t.Error("empty bins are not nil")
	}
}

// TestConsumeSSECapture parses the vLLM captures with a reader that moves
// the virtual clock by 1 ms per event, independently of HTTP.
func TestConsumeSSECapture(t *testing.T) {
	llama := results.Result{FirstToken: time.Millisecond, FirstOutput: time.Millisecond, Chunks: 3, Gaps: []results.GapBin{{V: 1000, N: 2}},
		TBTMax: time.Millisecond, PromptTokens: 11, CompletionTokens: 3,
		Server: &results.ServerTimings{PromptN: 2, CacheN: 9, PromptMS: 1.575, PredictedN: 3, PredictedMS: 1.849}}
	llamaCached := llama
	llamaCached.CachedTokens = 9
	llamaUnknown := llama
	llamaUnknown.NoCached = true
	tests := []struct {
		file    string
		dialect string
		want    results.Result
	}{
		{"llamacpp_b7099_completions.sse", dialect.LlamaCpp, llamaCached},
		{"llamacpp_b7099_completions.sse", dialect.VLLM, llamaUnknown},
		{"llamacpp_b7099_completions.sse", dialect.OpenAI, llamaUnknown},
		{"vllm_chat.sse", "", results.Result{FirstToken: 2 * time.Millisecond, FirstOutput: 2 * time.Millisecond, Chunks: 8, Gaps: []results.GapBin{{V: 1000, N: 7}},
			TBTMax: time.Millisecond, PromptTokens: 1024, CompletionTokens: 8, CachedTokens: 512}},
		{"vllm_completions.sse", "", results.Result{FirstToken: time.Millisecond, FirstOutput: time.Millisecond, Chunks: 5, Gaps: []results.GapBin{{V: 1000, N: 4}},
			TBTMax: time.Millisecond, PromptTokens: 37, CompletionTokens: 5, CachedTokens: 32}},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.dialect, func(t *testing.T) {
			var clk vclock
			var readers []io.Reader
			for _, ev := range readEvents(t, tc.file) {
				readers = append(readers, &tickReader{r: strings.NewReader(string(ev)), clk: &clk})
			}
			var res results.Result
			st := &tokenStats{res: &res, now: clk.now}
			if tc.dialect != "" {
				st.d, _ = dialect.Lookup(tc.dialect)
			}
			if err := consumeSSE(io.MultiReader(readers...), st); err != nil {
				t.Fatalf("consumeSSE: %v", err)
			}
			st.close()
			if diff := cmp.Diff(tc.want, res); diff != "" {
				t.Errorf("Result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// tickReader advances clk by 1 ms when its first byte is read.
type tickReader struct {
	r       io.Reader
	clk     *vclock
	started bool
}

func (t *tickReader) Read(b []byte) (int, error) {
	if !t.started {
		t.started = true
		t.clk.advance(time.Millisecond)
	}
	return t.r.Read(b)
}
