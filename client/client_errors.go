package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"unicode"

	"github.com/tracebench/tracebench/results"
)

// MaxErrBody is how much of a 4xx/5xx response body goes into Result.Err.
const MaxErrBody = 200

// classify maps an error of one exchange to its error class. ctx is the
// caller's context (its end means the Run stopped: canceled); rctx is the
// request's own context, whose cause tells a first-byte or idle timeout.
func classify(ctx, rctx context.Context, err error) string {
	if ctx.Err() != nil {
		return results.ErrCanceled
	}
	var ce *classedError
	if errors.As(err, &ce) {
		return ce.class
	}
	if c := context.Cause(rctx); errors.Is(c, errFirstByte) || errors.Is(c, errIdle) {
		return results.ErrTimeout
	}
	var cte *connectTimeoutError
	if errors.As(err, &cte) {
		return results.ErrTimeout
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		if op.Timeout() {
			return results.ErrTimeout
		}
		return results.ErrConnect
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return results.ErrTimeout
	}
	if isURLParse(err) {
		return results.ErrConnect
	}
	return results.ErrStreamBroken
}

// isURLParse reports an unusable Backend address (no connection tried).
func isURLParse(err error) bool {
	s := err.Error()
	return strings.Contains(s, "unsupported protocol scheme") || strings.Contains(s, "no Host in request URL")
}

// errText is the Err text for err with the request's own timeout cause
// spelled out (a bare "context canceled" says nothing).
func errText(rctx context.Context, err error) string {
	if c := context.Cause(rctx); errors.Is(c, errFirstByte) || errors.Is(c, errIdle) {
		return fmt.Sprintf("%v: %v", c, err)
	}
	return err.Error()
}

// httpErrorText reads at most MaxErrBody bytes of an error response body
// and returns "HTTP 503 Service Unavailable: <body>".
func httpErrorText(resp *http.Response, body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, MaxErrBody))
	msg := fmt.Sprintf("HTTP %s", resp.Status)
	if s := Printable(b); s != "" {
		msg += ": " + s
	}
	return msg
}

// Printable makes b a one-line valid UTF-8 string.
func Printable(b []byte) string {
	s := strings.ToValidUTF8(string(b), "�")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// statusClass is the error class of a non-2xx HTTP status.
func statusClass(code int) string {
	switch {
	case code >= 500:
		return results.ErrHTTP5xx
	case code == http.StatusNotFound:
		return results.ErrUnknownModel
	case code >= 400:
		return results.ErrHTTP4xx
	}
	return results.ErrBadPayload // 1xx/3xx: not an answer the API gives
}

// clipString returns at most n bytes of s, with "…" when cut.
func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// redact removes every secret from s (a server may echo headers back).
func redact(s string, secrets []string) string {
	for _, k := range secrets {
		if k != "" {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

// minSecretLen is the shortest extra-header value treated as a secret
// (4 bytes); shorter ones would garble every error text they occur in.
const minSecretLen = 4

// secretsOf returns what error texts must never show: the API key and
// the values of extra headers that carry credentials (Authorization,
// Proxy-Authorization, Cookie, and names containing key, token or secret),
// each also without its scheme ("Bearer sk-..." → "sk-...").
func secretsOf(o Options) []string {
	out := []string{o.APIKey}
	for name, v := range o.Headers {
		n := strings.ToLower(name)
		if !(n == "authorization" || n == "proxy-authorization" || n == "cookie" ||
			strings.Contains(n, "key") || strings.Contains(n, "token") || strings.Contains(n, "secret")) {
			continue
		}
		if len(v) >= minSecretLen {
			out = append(out, v)
		}
		if _, cred, ok := strings.Cut(v, " "); ok && len(cred) >= minSecretLen {
			out = append(out, cred)
		}
	}
	return out
}
