package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// apiError is vLLM's error body: {"error": {"message", "type", "param",
// "code"}} (vLLM's ErrorResponse, OpenAI's shape).
type apiError struct {
	Error apiErrorInfo `json:"error"`
}

type apiErrorInfo struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

// errorType names the error class of an HTTP status as vLLM and the
// OpenAI SDK do.
func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequestError"
	case http.StatusNotFound:
		return "NotFoundError"
	case http.StatusTooManyRequests:
		return "RateLimitError"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailableError"
	}
	return "InternalServerError"
}

// writeError sends an error response; retryAfter > 0 adds Retry-After
// (seconds).
func writeError(w http.ResponseWriter, status int, msg string, retryAfter int) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(apiError{Error: apiErrorInfo{Message: msg, Type: errorType(status), Code: status}})
}
