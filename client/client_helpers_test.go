package client

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// vclock is a virtual Run clock the test moves by hand.
type vclock struct{ t atomic.Int64 }

func (c *vclock) now() time.Duration      { return time.Duration(c.t.Load()) }
func (c *vclock) set(d time.Duration)     { c.t.Store(int64(d)) }
func (c *vclock) advance(d time.Duration) { c.t.Add(int64(d)) }

// readEvents splits an SSE capture into its events (each with its blank
// line terminator), so a fake server can send them one at a time.
func readEvents(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sse", name))
	if err != nil {
		t.Fatalf("read capture: %v", err)
	}
	var out [][]byte
	for _, ev := range bytes.SplitAfter(b, []byte("\n\n")) {
		if len(ev) > 0 {
			out = append(out, ev)
		}
	}
	return out
}

// stepServer is a loopback SSE server that writes the headers and then
// each event only when the test sends on release, so the test controls
// what the client has seen at every moment without sleeping.
// A value is sent on arrived when a request comes in.
func stepServer(t *testing.T, events [][]byte) (srv *httptest.Server, arrived, release chan struct{}) {
	t.Helper()
	arrived, release = make(chan struct{}, 1), make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for _, ev := range events {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			_, _ = w.Write(ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, arrived, release
}

// doAsync runs c.Do in a goroutine and returns a channel closed when it
// returns.
func doAsync(ctx context.Context, c *Client, base string, req *traces.Request, res *results.Result,
	now func() time.Duration, onTokens func(int)) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Do(ctx, base, req, res, now, onTokens)
	}()
	return done
}

// waitDone fails the test if done is not closed within d (a hang).
func waitDone(t *testing.T, done chan struct{}, d time.Duration) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("Do did not return within %s", d)
	}
}

// isContent reports whether an SSE event carries generated text.
func isContent(t *testing.T, ev []byte) bool {
	t.Helper()
	data := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(ev), []byte("data:")))
	if bytes.Equal(data, []byte("[DONE]")) {
		return false
	}
	var c apiChunk
	if err := decodeChunk(data, &c); err != nil {
		t.Fatalf("capture event %q: %v", ev, err)
	}
	return c.hasContent()
}
