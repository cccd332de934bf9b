package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// tokenServer streams n tokens per request in vLLM's completions format;
// status != 200 answers every request with that status instead.
func tokenServer(t *testing.T, n, status int, block, arrived chan struct{}) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"boom"}}`, status)
			return
		}
		if block != nil {
			arrived <- struct{}{}
			select {
			case <-block:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"text\":\"t%d \",\"finish_reason\":null}]}\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":%d,\"prompt_tokens_details\":{\"cached_tokens\":3}}}\n\n", n)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func runOptions(t *testing.T, n int, urls ...string) (Options, string) {
	t.Helper()
	var reqs []traces.Request
	for i := 0; i < n; i++ {
		reqs = append(reqs, traces.Request{ID: fmt.Sprint(i), Arrival: time.Duration(i) * 200 * time.Microsecond,
			Prompt: "hello world", InputTokens: 2, OutputTokens: 4})
	}
	r, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 1)))
	q, _ := policies.NewQueue("fcfs", nil, nil)
	path := filepath.Join(t.TempDir(), "results.jsonl")
	w, err := results.Create(path, results.Header{Version: results.Version, Policy: "round-robin"})
	if err != nil {
		t.Fatal(err)
	}
	return Options{Common: Common{Source: traces.NewSliceSource(reqs), Router: r, Queue: q, Results: w}, Backends: urls,
		Client: client.New(client.Options{Stream: true, Model: "m", TokenExact: true}), Grace: time.Second}, path
}

func TestRunCountsAddUp(t *testing.T) {
	ok := tokenServer(t, 4, 200, nil, nil)
	bad := tokenServer(t, 0, 503, nil, nil)
	o, path := runOptions(t, 40, ok.URL, bad.URL)
	stop, err := Run(context.Background(), o)
	if err != nil || stop.Reason != "done" {
		t.Fatalf("stop %+v err %v", stop, err)
	}
	o.Results.Close(stop)
	rd, n, _, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]int{}
	rd = mustOpenResults(t, path)
	for {
		r, _, err := rd.Next()
		if err != nil {
			break
		}
		classes[r.ErrClass]++
		if r.OK() && (r.TTFT() <= 0 || r.CompletionTokens != 4 || r.CachedTokens != 3 || r.Chunks != 4) {
			t.Fatalf("bad success result %+v", r)
		}
	}
	if n != 40 || classes[""] != 20 || classes[results.ErrHTTP5xx] != 20 {
		t.Fatalf("%d results by class %v; want 40 = 20 ok + 20 http-5xx", n, classes)
	}
}

func TestRunInterruptKeepsMeasurements(t *testing.T) {
	block, arrived := make(chan struct{}), make(chan struct{}, 5)
	srv := tokenServer(t, 2, 200, block, arrived)
	o, path := runOptions(t, 5, srv.URL)
	o.Grace = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan results.Stop)
	go func() {
		s, _ := Run(ctx, o)
		done <- s
	}()
	// Wait until the server holds every stream.
	for i := 0; i < 5; i++ {
		<-arrived
	}
	cancel()
	stop := <-done
	close(block)
	if stop.Reason != "interrupted" {
		t.Fatalf("reason %q, want interrupted", stop.Reason)
	}
	o.Results.Close(stop)
	_, n, _, err := readAll(t, path)
	if err != nil || n != 5 {
		t.Fatalf("read %d results (%v), want all 5 (canceled after the grace period)", n, err)
	}
}
