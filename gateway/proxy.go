package gateway

import (
	"context"
	"crypto/subtle"
	"io"
	"net/http"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Request headers the gateway reads besides the body.
const (
	// HeaderRequestID names the request in the results file (default:
	// "g" and its arrival number).
	HeaderRequestID = "X-Request-Id"
	// HeaderSession groups the turns of one conversation, for routers
	// that keep sessions together.
	HeaderSession = "X-Session-Id"
)

// serveAPI handles one completions (chat false) or chat request: read,
// admit, wait for the release, pass through, record.
func (g *Gateway) serveAPI(w http.ResponseWriter, r *http.Request, chat bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "use POST", "")
		return
	}
	if !g.authorized(r) {
		writeError(w, http.StatusUnauthorized, "missing or wrong API key (Authorization: Bearer KEY)", "")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.o.MaxBody))
	if err != nil {
		writeBodyError(w, err)
		return
	}
	req, err := parseBody(body, chat)
	if err != nil {
		writeBodyError(w, err)
		return
	}
	req.ID, req.Session = r.Header.Get(HeaderRequestID), r.Header.Get(HeaderSession)
	seq := g.rec.arrive(&req)
	ctx, cancel := g.requestContext(r)
	defer cancel()
	wt, rej := g.rt.admit(&req)
	if rej != nil {
		rej.Seq = seq
		g.rec.result(rej)
		writeRejected(w, rej, g.o.RetryAfter)
		return
	}
	rel, ok := g.await(ctx, &req, wt)
	if !ok || rel.err != nil {
		g.unreleased(w, r, &req, seq, rel.err)
		return
	}
	g.forward(ctx, cancel, w, r.URL.Path, body, r.Header, &req, seq, rel)
}

// authorized checks the API key, when the gateway has one.
func (g *Gateway) authorized(r *http.Request) bool {
	if g.o.APIKey == "" {
		return true
	}
	got := r.Header.Get("Authorization")
	return subtle.ConstantTimeCompare([]byte(got), []byte("Bearer "+g.o.APIKey)) == 1
}

// requestContext ends when the client leaves or when the gateway cuts
// in-flight requests after its grace period.
func (g *Gateway) requestContext(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(g.work, cancel)
	return ctx, func() { stop(); cancel() }
}

// await waits for req's release; false when ctx ended first while the
// request was still held.
func (g *Gateway) await(ctx context.Context, req *traces.Request, wt *waiter) (release, bool) {
	select {
	case rel := <-wt.ch:
		return rel, true
	case <-ctx.Done():
		if g.rt.leave(req, wt) {
			return release{}, false
		}
		return <-wt.ch, true // released meanwhile
	}
}

// unreleased records a request that never reached a backend: its client
// left or the gateway stopped while it was held (canceled), or routing
// failed (answered 503).
func (g *Gateway) unreleased(w http.ResponseWriter, r *http.Request, req *traces.Request, seq int64, err error) {
	now := g.now()
	res := &results.Result{Seq: seq, ID: req.ID, User: req.User, Session: req.Session, Backend: -1,
		Intended: req.Arrival, Released: now, Done: now, InputTokens: req.InputTokens, OutputTokens: req.OutputTokens,
		ErrClass: results.ErrCanceled, Err: "the client left while the request was held in the gateway"}
	if err != nil {
		res.ErrClass, res.Err = results.ErrRejected, "routing failed: "+err.Error()
	} else if r.Context().Err() == nil {
		res.Err = "the gateway stopped while the request was held"
	}
	g.rec.result(res)
	if r.Context().Err() == nil {
		writeError(w, http.StatusServiceUnavailable, res.Err, "")
	}
}

// forward passes the released request through to its backend and
// records it.
func (g *Gateway) forward(ctx context.Context, cancel context.CancelFunc, w http.ResponseWriter, path string,
	body []byte, h http.Header, req *traces.Request, seq int64, rel release) {
	res := &results.Result{Seq: seq, ID: req.ID, User: req.User, Session: req.Session, Backend: rel.Backend,
		Intended: req.Arrival, Released: rel.Released, InputTokens: req.InputTokens, OutputTokens: req.OutputTokens,
		PredictedHitTokens: rel.PredictedHitTokens}
	rp := newReply(w, cancel)
	f := &client.Forward{Path: path, Body: body, Header: h, Reply: rp}
	onTokens := g.rt.tokensFunc(req)
	if rel.Prefill != nil {
		res.PD = &results.PrefillPhase{Backend: rel.Prefill.Backend, Protocol: g.pdProtocol()}
		prefilled := false
		onPrefill := func() {
			prefilled = true
			ph := *res.PD
			g.rt.prefillDone(req, &results.Result{Intended: res.Intended, Sent: res.PD.Sent, PD: &ph})
		}
		g.o.Client.ForwardPD(ctx, rel.prefillURL, rel.url, f, res, g.now, onTokens, onPrefill)
		if !prefilled { // failed before the prefill phase could end
			onPrefill()
		}
	} else {
		g.o.Client.Forward(ctx, rel.url, f, res, g.now, onTokens)
	}
	if res.InputTokens == 0 {
		res.InputTokens = res.PromptTokens // a text prompt: the server's count
	}
	g.rt.done(req, res)
	g.rec.result(res)
	g.finishReply(w, rp, res)
}

// finishReply answers a request whose backend never answered, and cuts
// the client's connection when the backend's answer broke after it
// began, so the client sees what the gateway saw.
func (g *Gateway) finishReply(w http.ResponseWriter, rp *reply, res *results.Result) {
	switch {
	case rp.failed:
		// The client left: nobody to answer.
	case !rp.started && !res.OK():
		writeError(w, upstreamStatus(res.ErrClass), "backend "+backendName(res.Backend)+": "+res.Err, "")
	case rp.started && res.Status >= 200 && res.Status < 300 &&
		(res.ErrClass == results.ErrStreamBroken || res.ErrClass == results.ErrTimeout || res.ErrClass == results.ErrCanceled):
		rp.abort()
	}
}

// pdProtocol is the P/D protocol (two-step by default).
func (g *Gateway) pdProtocol() string {
	if g.o.PD == nil || g.o.PD.Protocol == "" {
		return results.PDTwoStep
	}
	return g.o.PD.Protocol
}
