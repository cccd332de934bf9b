package gateway

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/results"
)

// writeError answers status with an OpenAI-style error object; param
// names the offending request field ("" none).
func writeError(w http.ResponseWriter, status int, msg, param string) {
	var p any
	if param != "" {
		p = param
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": errorType(status),
		"param": p, "code": status}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// errorType is the OpenAI error type of a status.
func errorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusMethodNotAllowed, http.StatusNotFound:
		return "invalid_request_error"
	}
	return "server_error"
}

// writeBodyError answers a body the gateway cannot read: 413 over the
// size limit, else 400 naming the field.
func writeBodyError(w http.ResponseWriter, err error) {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		writeError(w, http.StatusRequestEntityTooLarge, "request body larger than "+strconv.FormatInt(mb.Limit, 10)+
			" bytes, the gateway's body limit", "")
		return
	}
	var be *bodyError
	if errors.As(err, &be) {
		writeError(w, http.StatusBadRequest, be.Error(), be.Field)
		return
	}
	writeError(w, http.StatusBadRequest, "request body: "+err.Error(), "")
}

// writeRejected answers a request the queue turned away: 429 with
// Retry-After in whole seconds (at least 1).
func writeRejected(w http.ResponseWriter, res *results.Result, after time.Duration) {
	secs := max(int64((after+time.Second-1)/time.Second), 1)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	writeError(w, http.StatusTooManyRequests, res.Err, "")
}

// upstreamStatus is the gateway's answer to a request that got no
// answer from its backend: 504 after a timeout, 503 when the gateway
// stopped it, else 502.
func upstreamStatus(class string) int {
	switch class {
	case results.ErrTimeout:
		return http.StatusGatewayTimeout
	case results.ErrCanceled:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadGateway
}
