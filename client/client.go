package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Options configure a Client. Zero durations take the Default*
// timeouts; the CLI's defaults are Stream and TokenExact true.
type Options struct {
	// API is APICompletions ("completions", the default), APIChat,
	// APIResponses or APINative.
	API string
	// Model is the model name sent when a Request names none (the caller
	// resolves a default with ListModels).
	Model string
	// APIKey is sent as "Authorization: Bearer"; it never appears in
	// Result.Err, logs or results files.
	APIKey string
	// Headers are extra request headers. Values of credential headers
	// (Authorization, Cookie, names with key, token or secret) are
	// removed from error texts like APIKey.
	Headers map[string]string
	// Stream asks for SSE streaming; a non-streamed response counts as
	// one chunk.
	Stream bool
	// ConnectTimeout bounds connection setup (default 5 s).
	ConnectTimeout time.Duration
	// FirstByteTimeout bounds the wait for response headers (default 60 s).
	FirstByteTimeout time.Duration
	// IdleTimeout bounds the gap between reads of a response body, the
	// wait for the first token included (default 60 s).
	IdleTimeout time.Duration
	// MaxConnsPerHost caps connections per Backend (0: unlimited); a
	// request waiting for a free connection spends its first-byte timeout.
	MaxConnsPerHost int
	// TokenExact sends Requests that have block or token ids as token-id
	// arrays to completions endpoints (vLLM accepts prompt: []int).
	TokenExact bool
	// Dialect is the servers' dialect: the request-body extras and where
	// responses carry cached prompt tokens (nil: vLLM).
	Dialect *dialect.Dialect
	// HTTP2 allows HTTP/2 (TLS ALPN); the default is HTTP/1.1 only, one
	// stream per connection, as vLLM's uvicorn server speaks.
	HTTP2 bool
	// Salt, when set, isolates this Client's prompts from every other
	// prompt a server has cached: SaltTokens token ids spelled by Salt go
	// at the head of every token-id prompt (see Client.Salted), so prompts
	// share prefixes among themselves but with no prompt sent under
	// another salt. Usage counts exclude the salt. "" (default): none.
	Salt string
	// ReasoningTags reads reasoning between <think> and </think> in the
	// generated content, for reasoning models served without a
	// reasoning parser (default false: only the servers' reasoning
	// fields and events are reasoning).
	ReasoningTags bool
}

// Client sends Requests to OpenAI-compatible (vLLM) servers and measures
// their responses. It is safe for concurrent use by many workers.
type Client struct {
	o  Options
	tr *http.Transport
	hc *http.Client
	// secrets are removed from every error text (see secretsOf).
	secrets []string
	// texts caches the server's text of generated chat contents.
	texts serverTexts
	// salt is the token ids of o.Salt (nil without one).
	salt []int
}

// New returns a Client with its own connection pool.
func New(o Options) *Client {
	return newClientDial(o, (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext)
}

// newClientDial is New with a given dial function (tests use it to
// stall a connect).
func newClientDial(o Options, dial dialFunc) *Client {
	if o.API == "" {
		o.API = APICompletions
	}
	o.ConnectTimeout = orDefault(o.ConnectTimeout, DefaultConnectTimeout)
	o.FirstByteTimeout = orDefault(o.FirstByteTimeout, DefaultFirstByteTimeout)
	o.IdleTimeout = orDefault(o.IdleTimeout, DefaultIdleTimeout)
	tr := newTransport(o, dial)
	hc := &http.Client{
		Transport: tr,
		// A load generator reports a redirect; it does not follow it.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	c := &Client{o: o, tr: tr, hc: hc, secrets: secretsOf(o)}
	if o.Salt != "" {
		c.salt = saltIDs(o.Salt)
	}
	return c
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Options returns the Client's options with defaults applied.
func (c *Client) Options() Options { return c.o }

// Close releases the Client's idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// Do sends req to base (e.g. "http://127.0.0.1:8000") and fills res:
// Sent, Headers, FirstToken, FirstOutput, Done, Chunks, Gaps, TBTMax,
// PromptTokens, CompletionTokens, CachedTokens, ReasoningTokens, Status,
// ErrClass and Err. now returns
// the Run clock (offset since the Run started); every stamp uses it.
// onTokens(n), if not nil, is called from the calling goroutine as output
// tokens arrive (n new tokens in a chunk). Do never panics and never
// hangs: every phase has a timeout, and ctx's end stops it with
// ErrCanceled. A failure is recorded in res, never returned. res must
// not be nil.
func (c *Client) Do(ctx context.Context, base string, req *traces.Request, res *results.Result,
	now func() time.Duration, onTokens func(n int)) {
	c.do(ctx, base, req, res, now, onTokens, nil)
}

// sendExtras change one request: body edits its JSON body fields before
// encoding, header adds request headers, and onHeaders sees the response
// headers. Any may be nil.
type sendExtras struct {
	body      func(map[string]any)
	header    map[string]string
	onHeaders func(http.Header)
}

// do is Do with extras (nil: none).
func (c *Client) do(ctx context.Context, base string, req *traces.Request, res *results.Result,
	now func() time.Duration, onTokens func(n int), x *sendExtras) {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hreq, class, err := c.newRequest(rctx, base, req, x)
	if err != nil {
		res.Sent = now()
		c.fail(res, now, class, err.Error())
		return
	}
	c.exchange(ctx, rctx, cancel, hreq, res, now, onTokens, x, nil)
	if res.Slot == nil && req.Slot != nil && c.dialect().SlotField() != "" {
		// The server runs a request that names its slot on that slot
		// only (llama.cpp defers it until the slot is free), and its
		// OpenAI-compatible replies do not say (b7099).
		id := *req.Slot
		res.Slot = &id
	}
}

// exchange sends hreq and reads the answer into res. reply, when set,
// gets the Backend's status and headers first and then every byte read,
// an error answer's included, and the rest after the end (a proxy passes
// it all on); without one the rest is read briefly so the connection
// returns to the pool.
func (c *Client) exchange(ctx, rctx context.Context, cancel context.CancelCauseFunc, hreq *http.Request, res *results.Result,
	now func() time.Duration, onTokens func(n int), x *sendExtras, reply Reply) {
	pt := startPhaseTimer(cancel, c.o.FirstByteTimeout)
	defer pt.stop()
	res.Sent = now()
	resp, err := c.hc.Do(hreq)
	if err != nil {
		class := classify(ctx, rctx, err)
		if class == results.ErrStreamBroken {
			// Cut before any response (reset, EOF on a fresh or pooled
			// connection): the connection failed, there was no stream.
			class = results.ErrConnect
		}
		c.fail(res, now, class, errText(rctx, err))
		return
	}
	defer resp.Body.Close()
	res.Headers = now()
	res.Status = resp.StatusCode
	if x != nil && x.onHeaders != nil {
		x.onHeaders(resp.Header)
	}
	var out io.Writer = io.Discard
	if reply != nil {
		reply.Start(resp.StatusCode, resp.Header)
		out = reply
	}
	pt.idle(c.o.IdleTimeout)
	rd := io.TeeReader(&idleReader{r: resp.Body, p: pt, d: c.o.IdleTimeout}, out)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		c.fail(res, now, statusClass(resp.StatusCode), httpErrorText(resp, rd))
	} else if !c.read(ctx, rctx, resp, rd, res, now, onTokens) {
		return
	}
	// Read the end of the body (the blank line after [DONE], the rest of
	// an error body), but never wait long for a server that keeps it open.
	pt.reset(drainTimeout)
	if reply != nil {
		_, _ = io.Copy(io.Discard, rd)
		return
	}
	drain(resp.Body)
}

// newRequest builds the HTTP request for req, or returns the error class
// and error that stop it before sending.
func (c *Client) newRequest(ctx context.Context, base string, req *traces.Request, x *sendExtras) (*http.Request, string, error) {
	if req == nil {
		return nil, results.ErrBadPayload, errors.New("no request to send")
	}
	var edit func(map[string]any)
	if x != nil {
		edit = x.body
	}
	body, err := c.bodyWith(c.exactChat(ctx, base, req), edit)
	if err != nil {
		return nil, results.ErrBadPayload, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, BaseURL(base)+c.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, results.ErrConnect, fmt.Errorf("backend address %q: %w", base, err)
	}
	c.setHeaders(hreq)
	if x != nil {
		for k, v := range x.header {
			hreq.Header.Set(k, v)
		}
	}
	// Servers that close kept-alive connections after a number of requests
	// (llama.cpp's cpp-httplib server: 5 by default) make the next request
	// on a reused connection fail with EOF before the server read it. A
	// nil X-Idempotency-Key (not sent) lets the transport retry such a
	// request once on a new connection, as it does for GET.
	hreq.Header["X-Idempotency-Key"] = nil
	return hreq, "", nil
}

// drainTimeout bounds the read of what follows the end of a response.
const drainTimeout = 250 * time.Millisecond

// read consumes a 2xx response body, streamed or not, and reports
// whether it succeeded.
func (c *Client) read(ctx, rctx context.Context, resp *http.Response, rd io.Reader, res *results.Result,
	now func() time.Duration, onTokens func(n int)) bool {
	st := &tokenStats{res: res, now: now, onTokens: onTokens, d: c.o.Dialect, salt: c.saltLen(),
		responses: c.o.API == APIResponses, native: c.o.API == APINative}
	if c.o.ReasoningTags {
		st.tags = &thinkTags{}
	}
	var err error
	if isEventStream(resp.Header.Get("Content-Type")) {
		err = consumeSSE(rd, st)
	} else {
		err = consumeJSON(rd, st)
	}
	st.close()
	if err != nil {
		c.fail(res, now, classify(ctx, rctx, err), errText(rctx, err))
		return false
	}
	res.Done = now()
	return true
}

// fail records an error outcome; secrets are removed from the text.
func (c *Client) fail(res *results.Result, now func() time.Duration, class, msg string) {
	res.Done = now()
	res.ErrClass = class
	res.Err = redact(msg, c.secrets)
}

// setHeaders sets content negotiation, credentials and extra headers.
func (c *Client) setHeaders(r *http.Request) {
	r.Header.Set("Content-Type", "application/json")
	if c.o.Stream {
		r.Header.Set("Accept", "text/event-stream")
	} else {
		r.Header.Set("Accept", "application/json")
	}
	r.Header.Set("User-Agent", "tracebench")
	for k, v := range c.o.Headers {
		r.Header.Set(k, v)
	}
	if c.o.APIKey != "" {
		r.Header.Set("Authorization", "Bearer "+c.o.APIKey)
	}
}

// isEventStream reports a text/event-stream content type.
func isEventStream(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/event-stream"
}

// drain reads what is left of a finished response (the end of a chunked
// body) so its connection returns to the pool; at most 64 KiB.
func drain(r io.Reader) {
	_, _ = io.CopyN(io.Discard, r, 64<<10)
}
