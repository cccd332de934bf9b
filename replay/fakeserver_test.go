package replay

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
	roleChunk  = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	tokChunk   = `data: {"choices":[{"index":0,"text":"tok","finish_reason":null}]}` + "\n\n"
	finChunk   = `data: {"choices":[{"index":0,"text":"","finish_reason":"length"}]}` + "\n\n"
	usageChunk = `data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,` +
		`"prompt_tokens_details":{"cached_tokens":4}}}` + "\n\n"
	doneChunk = "data: [DONE]\n\n"
)

// sseHandler answers 200 text/event-stream and writes parts, flushing
// after each, then returns (ending the stream cleanly).
func sseHandler(parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range parts {
			_, _ = fmt.Fprint(w, p)
			w.(http.Flusher).Flush()
		}
	}
}

// stallAfter writes parts and then blocks until the client goes away.
func stallAfter(parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sseHandler(parts...)(w, r)
		<-r.Context().Done()
	}
}

// cutAfter writes a raw chunked response holding parts (the last one
// possibly unterminated) and closes the connection without the final
// chunk: a server that died mid-stream.
func cutAfter(parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err) // test server only
		}
		defer conn.Close()
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		for _, p := range parts {
			fmt.Fprintf(buf, "%x\r\n%s\r\n", len(p), p)
		}
		_ = buf.Flush()
	}
}

// statusHandler answers code with a JSON error body.
func statusHandler(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// rawServer is a loopback server running h after reading the request
// body (only then does net/http notice a client that hangs up, which the
// stalling handlers wait for).
func rawServer(t testing.TB, h func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// closedAddr returns a loopback address nothing listens on (a port that
// was just bound and released), so a dial is refused.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
