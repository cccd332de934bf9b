package client

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tracebench/tracebench/results"
)

// Forward is one request a gateway passes through to a Backend: the
// caller's own body and headers, sent unchanged, and where the answer
// goes as it arrives.
type Forward struct {
	// Path is the request path ("/v1/completions", "/v1/chat/completions").
	Path string
	// Body is the request body, sent as it is.
	Body []byte
	// Header holds the caller's request headers (nil: none). Hop-by-hop
	// headers, Host, Content-Length and Accept-Encoding are not passed
	// on (the answer is read uncompressed); the Client's extra headers
	// and API key are set over the rest.
	Header http.Header
	// Reply receives the answer (nil: it is only measured).
	Reply Reply
}

// Reply receives a forwarded answer: Start once with the Backend's
// status and headers, then every body byte through Write as it is read.
// A Write error (the caller went away) ends the exchange.
type Reply interface {
	Start(status int, h http.Header)
	Write(p []byte) (int, error)
}

// Forward sends f to base and measures the answer as Do measures its
// own requests, filling the same fields of res with the same stamps,
// token counts and error classes (classify, statusClass). Every body
// byte goes on to f.Reply as it is read, an error answer's included.
// ctx's end (the caller went away) aborts the upstream request, recorded
// as ErrCanceled. Forward never panics and never hangs.
func (c *Client) Forward(ctx context.Context, base string, f *Forward, res *results.Result,
	now func() time.Duration, onTokens func(n int)) {
	c.forward(ctx, base, f, res, now, onTokens, nil)
}

// forward is Forward with a body edit and header callback (x may be nil;
// x.body is applied by the caller, see forwardBody).
func (c *Client) forward(ctx context.Context, base string, f *Forward, res *results.Result,
	now func() time.Duration, onTokens func(n int), x *sendExtras) {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hreq, err := c.forwardRequest(rctx, base, f, x)
	if err != nil {
		res.Sent = now()
		c.fail(res, now, results.ErrConnect, err.Error())
		return
	}
	c.exchange(ctx, rctx, cancel, hreq, res, now, onTokens, x, f.Reply)
}

// hopHeaders are the headers a proxy does not pass on (RFC 9110 7.6.1),
// with those Forward sets itself.
var hopHeaders = map[string]bool{"Connection": true, "Keep-Alive": true, "Proxy-Connection": true,
	"Proxy-Authenticate": true, "Proxy-Authorization": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true, "Host": true, "Content-Length": true, "Accept-Encoding": true}

// forwardRequest builds the upstream request of f.
func (c *Client) forwardRequest(ctx context.Context, base string, f *Forward, x *sendExtras) (*http.Request, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, BaseURL(base)+f.Path, bytes.NewReader(f.Body))
	if err != nil {
		return nil, fmt.Errorf("backend address %q: %w", base, err)
	}
	for k, vs := range f.Header {
		if !hopHeaders[http.CanonicalHeaderKey(k)] {
			hreq.Header[k] = vs
		}
	}
	if hreq.Header.Get("Content-Type") == "" || !strings.Contains(hreq.Header.Get("Content-Type"), "json") {
		hreq.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.o.Headers {
		hreq.Header.Set(k, v)
	}
	if c.o.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.o.APIKey)
	}
	if x != nil {
		for k, v := range x.header {
			hreq.Header.Set(k, v)
		}
	}
	hreq.Header["X-Idempotency-Key"] = nil // retried once on a closed kept-alive connection, as in Do
	return hreq, nil
}
