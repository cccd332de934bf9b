package client

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/fakesse"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

func TestDoFaults(t *testing.T) {
	// short is for the rows that must time out; the others get timeouts
	// no loaded machine reaches, so they cannot flake.
	short := Options{Stream: true, FirstByteTimeout: 50 * time.Millisecond, IdleTimeout: 50 * time.Millisecond}
	normal := Options{Stream: true, FirstByteTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
	long := strings.Repeat("x", 300)
	tests := []struct {
		name      string
		handler   http.HandlerFunc
		opts      Options
		wantClass string
		wantErr   string // substring of Err
		wantOut   int    // CompletionTokens
		wantCh    int    // Chunks
	}{
		{"happy path", fakesse.SSE(fakesse.RoleChunk, fakesse.TokChunk, fakesse.TokChunk, fakesse.FinChunk, fakesse.UsageChunk, fakesse.DoneChunk), normal, "", "", 2, 2},
		{"429", fakesse.Status(429, `{"object":"error","message":"rate limited"}`), normal, results.ErrHTTP4xx, "429 Too Many Requests: {\"object\":\"error\",\"message\":\"rate limited\"}", 0, 0},
		{"500", fakesse.Status(500, `Internal Server Error`), normal, results.ErrHTTP5xx, "HTTP 500", 0, 0},
		{"503", fakesse.Status(503, `{"error":"overloaded"}`), normal, results.ErrHTTP5xx, "503 Service Unavailable", 0, 0},
		{"error body clipped to 200 bytes", fakesse.Status(400, long), normal, results.ErrHTTP4xx, "400 Bad Request: " + long[:200], 0, 0},
		{"302 not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, normal, results.ErrBadPayload, "HTTP 302", 0, 0},
		{"reset before any response", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				panic(err) // test server only
			}
			_ = conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
			conn.Close()
		}, normal, results.ErrConnect, "", 0, 0},
		{"first-byte timeout", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, short,
			results.ErrTimeout, "first-byte", 0, 0},
		{"idle timeout before first token", fakesse.StallAfter(fakesse.RoleChunk), short, results.ErrTimeout, "idle", 0, 0},
		{"idle timeout mid-stream", fakesse.StallAfter(fakesse.TokChunk, fakesse.TokChunk), short, results.ErrTimeout, "idle", 2, 2},
		{"cut between events", fakesse.CutAfter(fakesse.TokChunk, fakesse.TokChunk), normal, results.ErrStreamBroken, "", 2, 2},
		{"cut inside an event", fakesse.CutAfter(fakesse.TokChunk, `data: {"choices":[{"te`), normal, results.ErrStreamBroken, "", 1, 1},
		{"clean end inside an event", fakesse.SSE(fakesse.TokChunk, `data: {"choices":[]}`), normal, results.ErrStreamBroken,
			"inside an event", 1, 1},
		{"no [DONE], no finish", fakesse.SSE(fakesse.TokChunk, fakesse.TokChunk), normal, results.ErrStreamBroken, "without [DONE]", 2, 2},
		{"no [DONE] after finish and usage", fakesse.SSE(fakesse.TokChunk, fakesse.TokChunk, fakesse.FinChunk, fakesse.UsageChunk), normal, "", "", 2, 2},
		{"error frame (vLLM)", fakesse.SSE(fakesse.TokChunk, `data: {"error":{"object":"error","message":"engine dead",`+
			`"type":"InternalServerError","param":null,"code":500}}`+"\n\n"), normal, results.ErrStreamError,
			"InternalServerError: engine dead", 1, 1},
		{"error frame (flat)", fakesse.SSE(`data: {"object":"error","message":"too long","code":400}` + "\n\n"), normal,
			results.ErrStreamError, "too long", 0, 0},
		{"error event type", fakesse.SSE(fakesse.TokChunk, "event: error\ndata: overloaded\n\n"), normal, results.ErrStreamError,
			"overloaded", 1, 1},
		{"bad JSON chunk", fakesse.SSE(fakesse.TokChunk, "data: {not json\n\n"), normal, results.ErrBadPayload, "decode chunk", 1, 1},
		{"comments, keep-alives, CRLF, multi-line data", fakesse.SSE(": ping\n\n", "\r\n", "data: {\"choices\":\r\n",
			"data: [{\"text\":\"a\"}]}\r\n\r\n", ": keep-alive\n", "event: message\nid: 7\nretry: 10\n"+fakesse.TokChunk,
			fakesse.DoneChunk), normal, "", "", 2, 2},
		{"bytes split one by one", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, b := range []byte(fakesse.TokChunk + fakesse.TokChunk + fakesse.TokChunk + fakesse.DoneChunk) {
				_, _ = w.Write([]byte{b})
				w.(http.Flusher).Flush()
			}
		}, normal, "", "", 3, 3},
		{"non-streamed JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"choices":[{"index":0,"text":"a b c","finish_reason":"length"}],`+
				`"usage":{"prompt_tokens":5,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":0}}}`)
		}, Options{}, "", "", 3, 1},
		{"non-streamed error object", fakesse.Status(200, `{"error":{"message":"boom","type":"E"}}`), Options{},
			results.ErrStreamError, "E: boom", 0, 0},
		{"non-streamed garbage", fakesse.Status(200, `<html>`), Options{}, results.ErrBadPayload, "decode chunk", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakesse.RawServer(t, tc.handler)
			c := New(tc.opts)
			defer c.Close()
			var clk vclock
			var res results.Result
			done := doAsync(context.Background(), c, srv.URL, &traces.Request{ID: "f", Prompt: "p", OutputTokens: 2},
				&res, clk.now, func(int) { clk.advance(time.Millisecond) })
			waitDone(t, done, 10*time.Second)
			checkOutcome(t, &res, tc.wantClass, tc.wantErr)
			if res.CompletionTokens != tc.wantOut || res.Chunks != tc.wantCh {
				t.Errorf("tokens, chunks = %d, %d; want %d, %d", res.CompletionTokens, res.Chunks, tc.wantOut, tc.wantCh)
			}
		})
	}
}

// checkOutcome compares a Result's class and error text.
func checkOutcome(t *testing.T, res *results.Result, class, errSub string) {
	t.Helper()
	if res.ErrClass != class {
		t.Fatalf("ErrClass = %q (Err %q), want %q", res.ErrClass, res.Err, class)
	}
	if class == "" && res.Err != "" {
		t.Errorf("Err = %q on success", res.Err)
	}
	if !strings.Contains(res.Err, errSub) {
		t.Errorf("Err = %q, want it to contain %q", res.Err, errSub)
	}
}

func TestDoConnectFailures(t *testing.T) {
	stall := func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done() // a SYN nobody answers
		return nil, ctx.Err()
	}
	tests := []struct {
		name, base string
		dial       dialFunc
		wantClass  string
		wantErr    string
	}{
		{"refused", "http://" + fakesse.ClosedAddr(t), nil, results.ErrConnect, "refused"},
		{"connect timeout", "http://127.0.0.1:9", stall, results.ErrTimeout, "no connection within"},
		{"bad address", "ftp://127.0.0.1:1", nil, results.ErrConnect, "unsupported protocol scheme"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Stream: true, ConnectTimeout: 20 * time.Millisecond}
			c := New(o)
			if tc.dial != nil {
				c = newClientDial(o, tc.dial)
			}
			defer c.Close()
			var clk vclock
			var res results.Result
			done := doAsync(context.Background(), c, tc.base, &traces.Request{ID: "c"}, &res, clk.now, nil)
			waitDone(t, done, 10*time.Second)
			checkOutcome(t, &res, tc.wantClass, tc.wantErr)
			if res.Status != 0 {
				t.Errorf("Status = %d, want 0", res.Status)
			}
		})
	}
}

// TestDoCanceled stops the Run while the server stalls, before headers
// and mid-stream: both end promptly as canceled.
func TestDoCanceled(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
	}{
		{"before headers", nil},
		{"mid-stream", []string{fakesse.TokChunk}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arrived := make(chan struct{}, 1)
			srv := fakesse.RawServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.parts != nil {
					fakesse.SSE(tc.parts...)(w, r)
				}
				arrived <- struct{}{}
				<-r.Context().Done()
			})
			c := New(Options{Stream: true})
			defer c.Close()
			ctx, cancel := context.WithCancel(context.Background())
			var clk vclock
			var res results.Result
			done := doAsync(ctx, c, srv.URL, &traces.Request{ID: "x"}, &res, clk.now, nil)
			<-arrived
			cancel()
			waitDone(t, done, 10*time.Second)
			checkOutcome(t, &res, results.ErrCanceled, "")
		})
	}
}
