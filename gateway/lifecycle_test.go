package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
)

// holdingBackend streams one chunk per completion, then finishes when
// finish is closed; it counts the completions it got and reports each
// one whose client went away on aborted.
type holdingBackend struct {
	url     string
	finish  chan struct{}
	aborted chan struct{}
	got     atomic.Int64
}

func newHoldingBackend(t *testing.T) *holdingBackend {
	t.Helper()
	b := &holdingBackend{finish: make(chan struct{}), aborted: make(chan struct{}, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","owned_by":"vllm"}]}`)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		b.got.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, chunk)
		_ = http.NewResponseController(w).Flush()
		select {
		case <-b.finish:
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"b\",\"finish_reason\":\"length\"}],"+
				"\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\ndata: [DONE]\n\n")
		case <-r.Context().Done():
			b.aborted <- struct{}{}
		}
	}))
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

const streamBody = `{"prompt":"hello","max_tokens":2,"stream":true}`

// openStream sends a streamed request and returns once its first chunk
// arrived (nil response when it was answered without streaming).
func openStream(t *testing.T, ctx context.Context, url string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatalf("first chunk: %v", err)
	}
	return resp
}

// within waits for ch for up to 10 s.
func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
	}
}

// TestClientDisconnectAbortsUpstream: a client that leaves mid-stream
// aborts its upstream request, recorded as canceled; one that leaves
// while held in the queue is never sent.
func TestClientDisconnectAbortsUpstream(t *testing.T) {
	b := newHoldingBackend(t)
	tg := startGateway(t, []string{b.url}, gwConfig{edit: func(o *Options) { o.Capacity = policies.Capacity{Requests: 1} }})
	ctx, leave := context.WithCancel(context.Background())
	resp := openStream(t, ctx, tg.url)
	heldCtx, leaveHeld := context.WithCancel(context.Background())
	heldDone := make(chan struct{})
	go func() {
		defer close(heldDone)
		req, _ := http.NewRequestWithContext(heldCtx, http.MethodPost, tg.url+"/v1/completions", strings.NewReader(streamBody))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, "the second request held", func() bool {
		tg.g.rt.mu.Lock()
		defer tg.g.rt.mu.Unlock()
		return tg.g.rt.d.Held() == 1
	})
	leaveHeld()
	within(t, heldDone, "end of the held request")
	waitFor(t, "the gateway to see the held request's client leave", func() bool {
		tg.g.rt.mu.Lock()
		defer tg.g.rt.mu.Unlock()
		for _, w := range tg.g.rt.waiting {
			if !w.gone {
				return false
			}
		}
		return true
	})
	leave()
	resp.Body.Close()
	within(t, b.aborted, "upstream abort after the client left")
	tg.shutdown()
	if n := b.got.Load(); n != 1 {
		t.Errorf("backend got %d completions; the request whose client left while held must not be sent", n)
	}
	res := readResults(t, tg.results)
	if len(res) != 2 {
		t.Fatalf("%d results, want 2", len(res))
	}
	for _, r := range res {
		if r.ErrClass != results.ErrCanceled {
			t.Errorf("result %s (backend %d): class %q, want canceled", r.ID, r.Backend, r.ErrClass)
		}
	}
	if in := tg.g.rt.d.Tracker().InFlight(); in != 0 {
		t.Errorf("%d requests still counted in flight", in)
	}
}

// TestStopDrains: after the stop, a request that finishes within the
// grace period is recorded as it ended (stop reason done); one that
// does not is cut when the grace period is over, recorded as canceled,
// and its client sees the stream cut (stop reason interrupted).
func TestStopDrains(t *testing.T) {
	for _, tc := range []struct {
		name       string
		finish     bool
		wantClass  string
		wantReason results.StopReason
	}{
		{"finishes within grace", true, "", "done"},
		{"cut after grace", false, results.ErrCanceled, "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newHoldingBackend(t)
			tg := startGateway(t, []string{b.url}, gwConfig{edit: func(o *Options) { o.Grace = 300 * time.Millisecond }})
			resp := openStream(t, context.Background(), tg.url)
			defer resp.Body.Close()
			tg.cancel()
			addr := strings.TrimPrefix(tg.url, "http://")
			waitFor(t, "the listener closed", func() bool {
				c, err := net.Dial("tcp", addr)
				if err == nil {
					c.Close()
				}
				return err != nil
			})
			if tc.finish {
				close(b.finish)
			}
			_, readErr := io.ReadAll(resp.Body)
			stop := tg.shutdown()
			if stop.Reason != tc.wantReason {
				t.Errorf("stop reason %q, want %q", stop.Reason, tc.wantReason)
			}
			if (readErr != nil) == tc.finish {
				t.Errorf("client read error %v; finished %v", readErr, tc.finish)
			}
			res := readResults(t, tg.results)
			if len(res) != 1 || res[0].ErrClass != tc.wantClass {
				t.Fatalf("results %+v, want one of class %q", res, tc.wantClass)
			}
		})
	}
}
