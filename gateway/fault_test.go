package gateway

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// chunk is one streamed completion chunk.
const chunk = "data: {\"choices\":[{\"index\":0,\"text\":\"a\",\"finish_reason\":null}]}\n\n"

// faultyBackend answers /v1/models and misbehaves on completions as
// fault says.
func faultyBackend(t *testing.T, fault string) string {
	t.Helper()
	if fault == "refuse" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there any more: connections are refused
		return "http://" + addr
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","owned_by":"vllm"}]}`)
			return
		}
		misbehave(w, r, fault)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// misbehave answers one completion request the way fault names.
func misbehave(w http.ResponseWriter, r *http.Request, fault string) {
	// Reading the body lets the server see the client leave (r's context
	// ends then), as a stalled model server does.
	_, _ = io.Copy(io.Discard, r.Body)
	rc := http.NewResponseController(w)
	switch fault {
	case "reset before answer":
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
		return
	case "stall before answer":
		<-r.Context().Done()
		return
	case "http 503":
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":"overloaded"}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, chunk)
	_ = rc.Flush()
	switch fault {
	case "reset mid-stream":
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
	case "stall mid-stream":
		<-r.Context().Done()
	case "error frame":
		fmt.Fprint(w, "event: error\ndata: {\"error\":{\"message\":\"engine died\"}}\n\n")
	}
}

// TestFaultsClassifiedAsClient sends one request through the gateway to
// a backend that refuses, resets or stalls, and the same request with
// tracebench's own client straight to it: the gateway records the class
// the client gives, and a stream broken after it began reaches the
// gateway's client broken too.
func TestFaultsClassifiedAsClient(t *testing.T) {
	opts := client.Options{Stream: true, FirstByteTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond}
	tests := []struct {
		fault       string
		want        string
		brokenToo   bool // the gateway's client sees the stream cut
		gatewayCode int  // the gateway's status when the backend gave none
	}{
		{"refuse", results.ErrConnect, false, http.StatusBadGateway},
		{"reset before answer", results.ErrConnect, false, http.StatusBadGateway},
		{"stall before answer", results.ErrTimeout, false, http.StatusGatewayTimeout},
		{"http 503", results.ErrHTTP5xx, false, http.StatusServiceUnavailable},
		{"reset mid-stream", results.ErrStreamBroken, true, http.StatusOK},
		{"stall mid-stream", results.ErrTimeout, true, http.StatusOK},
		{"error frame", results.ErrStreamError, false, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			backend := faultyBackend(t, tc.fault)
			direct := directClass(backend, opts)
			if direct != tc.want {
				t.Fatalf("tracebench's client classes it %q, want %q", direct, tc.want)
			}
			tg := startGateway(t, []string{backend}, gwConfig{client: opts})
			code, readErr := streamThrough(t, tg.url)
			if code != tc.gatewayCode {
				t.Errorf("gateway answered %d, want %d", code, tc.gatewayCode)
			}
			if (readErr != nil) != tc.brokenToo {
				t.Errorf("client read error %v; want broken %v", readErr, tc.brokenToo)
			}
			tg.shutdown()
			res := readResults(t, tg.results)
			if len(res) != 1 || res[0].ErrClass != direct {
				t.Fatalf("gateway recorded %+v, want one result of class %q", res, direct)
			}
		})
	}
}

// directClass is the class tracebench's client gives one request to
// backend.
func directClass(backend string, opts client.Options) string {
	c := client.New(opts)
	defer c.Close()
	start := time.Now()
	res := &results.Result{}
	c.Do(context.Background(), backend, &traces.Request{ID: "x", Prompt: "hello", OutputTokens: 2}, res,
		func() time.Duration { return time.Since(start) }, nil)
	return res.ErrClass
}

// streamThrough sends one streamed request through the gateway with a
// plain client and returns the status and the body read's error.
func streamThrough(t *testing.T, url string) (int, error) {
	t.Helper()
	resp, err := http.Post(url+"/v1/completions", "application/json",
		strings.NewReader(`{"prompt":"hello","max_tokens":2,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return resp.StatusCode, err
}
