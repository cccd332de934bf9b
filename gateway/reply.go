package gateway

import (
	"context"
	"net/http"
)

// reply passes a backend's answer to the gateway's client as it arrives
// (client.Reply): the status and end-to-end headers, then every body
// read, flushed at once so a stream's chunks are not held back.
type reply struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	cancel  context.CancelFunc // ends the upstream request when the client is gone
	started bool
	failed  bool
}

func newReply(w http.ResponseWriter, cancel context.CancelFunc) *reply {
	return &reply{w: w, rc: http.NewResponseController(w), cancel: cancel}
}

// replyHop are the response headers not passed on.
var replyHop = map[string]bool{"Connection": true, "Keep-Alive": true, "Proxy-Connection": true,
	"Transfer-Encoding": true, "Upgrade": true, "Trailer": true, "Te": true, "Content-Length": true}

// Start writes the backend's status and headers.
func (r *reply) Start(status int, h http.Header) {
	dst := r.w.Header()
	for k, vs := range h {
		if !replyHop[k] {
			dst[k] = vs
		}
	}
	r.started = true
	r.w.WriteHeader(status)
}

// Write passes p on; a failed write (the client left) cancels the
// upstream request, so it is recorded as canceled, not as a broken
// stream.
func (r *reply) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if err == nil {
		err = r.rc.Flush()
	}
	if err != nil {
		r.failed = true
		r.cancel()
	}
	return n, err
}

// abort cuts the client's connection without ending the response, so a
// stream the backend broke reaches the client broken too (an ended
// chunked body would read as complete). Without a hijackable connection
// (HTTP/2) the response just ends.
func (r *reply) abort() {
	conn, _, err := r.rc.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}
