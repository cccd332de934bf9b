package client

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/fakesse"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// benchStream is a vLLM chat stream of n one-token chunks in the
// documented format (role chunk, token chunks, finish, usage, [DONE]).
func benchStream(n int) []byte {
	const head = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1735689600,` +
		`"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[`
	var b bytes.Buffer
	fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"+
		"\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n", head)
	for i := range n {
		fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{\"content\":\" tok%d\"},\"logprobs\":null,"+
			"\"finish_reason\":null}],\"usage\":null}\n\n", head, i)
	}
	fmt.Fprintf(&b, "data: %s{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"length\"}],"+
		"\"usage\":null}\n\n", head)
	fmt.Fprintf(&b, "data: %s],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":%d,"+
		"\"prompt_tokens_details\":{\"cached_tokens\":64}}}\n\ndata: [DONE]\n\n", head, n)
	return b.Bytes()
}

// BenchmarkSSEParse measures the stream parser alone (SSE framing, JSON
// decoding, stamps and gap bins): MB/s and content chunks/s.
func BenchmarkSSEParse(b *testing.B) {
	const n = 1000
	stream := benchStream(n)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var clk vclock
	now := func() time.Duration { clk.advance(time.Millisecond); return clk.now() }
	for b.Loop() {
		var res results.Result
		st := &tokenStats{res: &res, now: now}
		if err := consumeSSE(bytes.NewReader(stream), st); err != nil {
			b.Fatal(err)
		}
		st.close()
		if res.Chunks != n {
			b.Fatalf("chunks = %d, want %d", res.Chunks, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkDoLoopback measures a whole streamed request through the
// Client against a loopback server that writes a ready stream (one flush
// per chunk): client-side cost per request and tokens/s.
func BenchmarkDoLoopback(b *testing.B) {
	const n = 200
	stream := benchStream(n)
	events := bytes.SplitAfter(stream, []byte("\n\n"))
	srv := fakesse.RawServer(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			_, _ = w.Write(ev)
			w.(http.Flusher).Flush()
		}
	})
	c := New(Options{API: APIChat, Model: "m", Stream: true})
	defer c.Close()
	req := &traces.Request{ID: "b", Prompt: strings.Repeat("word ", 100), OutputTokens: n}
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		var res results.Result
		c.Do(context.Background(), srv.URL, req, &res, now, nil)
		if !res.OK() || res.Chunks != n {
			b.Fatalf("result %s %s, %d chunks", res.ErrClass, res.Err, res.Chunks)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
