// Package fakesse holds loopback test servers that answer like an
// OpenAI-compatible streaming server, or fail as one can: cleanly, by
// stalling, by dying mid-stream, with an error status, or by refusing the
// connection. Only tests import it.
package fakesse

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Chunks a fake server writes.
const (
	RoleChunk  = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	TokChunk   = `data: {"choices":[{"index":0,"text":"tok","finish_reason":null}]}` + "\n\n"
	FinChunk   = `data: {"choices":[{"index":0,"text":"","finish_reason":"length"}]}` + "\n\n"
	UsageChunk = `data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,` +
		`"prompt_tokens_details":{"cached_tokens":4}}}` + "\n\n"
	DoneChunk = "data: [DONE]\n\n"
)

// SSE answers 200 text/event-stream and writes parts, flushing after
// each, then returns (ending the stream cleanly).
func SSE(parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range parts {
			_, _ = fmt.Fprint(w, p)
			w.(http.Flusher).Flush()
		}
	}
}

// StallAfter writes parts and then blocks until the client goes away.
func StallAfter(parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		SSE(parts...)(w, r)
		<-r.Context().Done()
	}
}

// CutAfter writes a raw chunked response holding parts (the last one
// possibly unterminated) and closes the connection without the final
// chunk: a server that died mid-stream. Where the connection cannot be
// taken over it answers 500.
func CutAfter(parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			http.Error(w, fmt.Sprintf("fakesse: hijack: %v", err), http.StatusInternalServerError)
			return
		}
		defer conn.Close()
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		for _, p := range parts {
			fmt.Fprintf(buf, "%x\r\n%s\r\n", len(p), p)
		}
		_ = buf.Flush()
	}
}

// Status answers code with a JSON error body, and Retry-After: 1 for 429
// and 503.
func Status(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// RawServer is a loopback server running h after reading the request
// body (only then does net/http notice a client that hangs up, which the
// stalling handlers wait for); it closes when the test ends.
func RawServer(t testing.TB, h func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ClosedAddr returns a loopback address nothing listens on (a port that
// was just bound and released), so a dial is refused.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
