package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Default timeouts of a Client (Options zero values).
const (
	// DefaultConnectTimeout bounds TCP connection setup.
	DefaultConnectTimeout = 5 * time.Second
	// DefaultFirstByteTimeout bounds the wait from sending a request to
	// its response headers.
	DefaultFirstByteTimeout = 60 * time.Second
	// DefaultIdleTimeout bounds the gap between two reads of a response
	// body (an idle stream), the wait for the first token included.
	DefaultIdleTimeout = 60 * time.Second
)

// dialFunc opens a connection; the default is a net.Dialer's DialContext.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// connectTimeoutError reports a dial that outlived the connect timeout.
type connectTimeoutError struct {
	addr string
	d    time.Duration
}

func (e *connectTimeoutError) Error() string {
	return fmt.Sprintf("connect to %s: no connection within %s", e.addr, e.d)
}

// Timeout marks the error as a timeout (net.Error).
func (e *connectTimeoutError) Timeout() bool { return true }

// Temporary is part of net.Error.
func (e *connectTimeoutError) Temporary() bool { return true }

// timeoutDial wraps dial so that a connection not made within d fails
// with a connectTimeoutError (the parent context's own cancellation
// passes through unchanged).
func timeoutDial(dial dialFunc, d time.Duration) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		dctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		conn, err := dial(dctx, network, addr)
		if err != nil && ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
			return nil, &connectTimeoutError{addr: addr, d: d}
		}
		return conn, err
	}
}

// newTransport builds the HTTP transport of a Client, tuned for thousands
// of concurrent long-lived streams to a few hosts: keep-alive with an idle
// pool as large as the connection limit, no response compression (it
// would buffer streamed chunks), no proxy, and HTTP/1.1 unless o.HTTP2.
// Connect timeouts are enforced by dial; first-byte and idle timeouts by
// Do itself (they differ per phase of a response).
func newTransport(o Options, dial dialFunc) *http.Transport {
	idle := o.MaxConnsPerHost
	if idle <= 0 {
		idle = 4096
	}
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           timeoutDial(dial, o.ConnectTimeout),
		MaxConnsPerHost:       o.MaxConnsPerHost,
		MaxIdleConns:          0, // no overall limit; per host below
		MaxIdleConnsPerHost:   idle,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   o.ConnectTimeout,
		ExpectContinueTimeout: 0,
		DisableCompression:    true,
		ForceAttemptHTTP2:     o.HTTP2,
		// Small per-connection buffers: thousands of streams stay cheap
		// (SSE events are a few hundred bytes).
		WriteBufferSize: 4 << 10,
		ReadBufferSize:  8 << 10,
	}
	if !o.HTTP2 {
		// A non-nil empty map disables the transport's automatic h2.
		t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return t
}

// phaseTimer cancels a request when the current phase (waiting for
// headers, then each body read) outlives its deadline. The cause tells
// which phase timed out.
type phaseTimer struct {
	mu     sync.Mutex
	t      *time.Timer
	cancel context.CancelCauseFunc
	cause  error
}

// errFirstByte and errIdle are the causes a phaseTimer cancels with.
var (
	errFirstByte = errors.New("no response headers within the first-byte timeout")
	errIdle      = errors.New("stream idle longer than the idle timeout")
)

func startPhaseTimer(cancel context.CancelCauseFunc, d time.Duration) *phaseTimer {
	p := &phaseTimer{cancel: cancel, cause: errFirstByte}
	p.t = time.AfterFunc(d, p.fire)
	return p
}

func (p *phaseTimer) fire() {
	p.mu.Lock()
	cause := p.cause
	p.mu.Unlock()
	p.cancel(cause)
}

// idle switches to the idle phase and restarts the deadline at d.
func (p *phaseTimer) idle(d time.Duration) {
	p.mu.Lock()
	p.cause = errIdle
	p.mu.Unlock()
	p.t.Reset(d)
}

// reset restarts the deadline at d (after a read that returned data).
func (p *phaseTimer) reset(d time.Duration) { p.t.Reset(d) }

func (p *phaseTimer) stop() { p.t.Stop() }

// idleReader restarts the idle deadline after every read.
type idleReader struct {
	r interface{ Read([]byte) (int, error) }
	p *phaseTimer
	d time.Duration
}

func (r *idleReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if n > 0 {
		r.p.reset(r.d)
	}
	return n, err
}
