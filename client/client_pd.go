package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Response headers of tracebench's mock server giving, in seconds, the
// KV transfer a decode request paid and the prefill a decode replica ran
// for the sidecar header (mockserver.TransferHeader, PrefillHeader).
const (
	transferHeader = "X-Tracebench-Kv-Transfer"
	prefillHeader  = "X-Tracebench-Prefill"
	// prefillerHeader is llm-d's routing sidecar header naming the
	// prefill pod (host:port) on a request to a decode pod.
	prefillerHeader = "x-prefiller-host-port"
)

// DoPD sends req disaggregated: its prefill on prefill, its decode on
// decode, chained by res.PD.Protocol (PDTwoStep or PDSidecar), and fills
// res as Do does, with res.PD (which the caller set, Backend and
// Protocol) stamped. res.Sent is when the first request left. A
// two-step prefill answer without kv_transfer_params is recorded as
// ErrNoKVParams and req is sent to decode alone once; a failed prefill
// fails res with the prefill's class. onPrefill, if not nil, is called
// when the prefill phase ended (before the decode is sent).
func (c *Client) DoPD(ctx context.Context, prefill, decode string, req *traces.Request, res *results.Result,
	now func() time.Duration, onTokens func(n int), onPrefill func()) {
	c.disaggregated(prefill, res, now, onPrefill, func() (json.RawMessage, string, error) {
		return c.prefill(ctx, prefill, req, res.PD)
	}, func(x *sendExtras) { c.do(ctx, decode, req, res, now, onTokens, x) })
}

// disaggregated chains a prefill and a decode by res.PD.Protocol: with
// PDSidecar decode sends once, naming the prefill Backend in llm-d's
// header (sidecar); else prefillStep and decode run vLLM's two steps
// (twoStep). onPrefill (may be nil) is called when the prefill phase
// ended.
func (c *Client) disaggregated(prefill string, res *results.Result, now func() time.Duration, onPrefill func(),
	prefillStep func() (json.RawMessage, string, error), decode func(x *sendExtras)) {
	if res.PD.Protocol == results.PDSidecar {
		c.sidecar(prefill, res, now, onPrefill, decode)
		return
	}
	c.twoStep(res, now, onPrefill, prefillStep, decode)
}

// twoStep runs vLLM's two-step exchange: prefill sends the prefill
// request and returns its kv_transfer_params (or the class and error
// that stopped it), then decode sends the request with them (x edits the
// body and reads the transfer time), or without them (x nil) when the
// prefill answered none. res.PD is stamped; onPrefill (may be nil) is
// called when the prefill phase ended.
func (c *Client) twoStep(res *results.Result, now func() time.Duration, onPrefill func(),
	prefill func() (json.RawMessage, string, error), decode func(x *sendExtras)) {
	res.PD.Sent = now()
	kv, class, err := prefill()
	res.PD.Done = now()
	if err != nil {
		res.PD.ErrClass, res.PD.Err = class, redact(err.Error(), c.secrets)
	}
	if onPrefill != nil {
		onPrefill()
	}
	switch {
	case err == nil:
		decode(&sendExtras{
			body:      func(v map[string]any) { v["kv_transfer_params"] = kv },
			onHeaders: func(h http.Header) { res.PD.Transfer, res.PD.TransferKnown = headerSeconds(h, transferHeader) }})
	case class == results.ErrNoKVParams:
		res.PD.Fallback = true
		decode(nil)
	default:
		res.Sent = res.PD.Sent
		c.fail(res, now, class, "prefill: "+res.PD.Err)
		return
	}
	res.Sent = res.PD.Sent
}

// sidecar sends through send with llm-d's header naming the prefill
// Backend, reading the prefill and transfer times from the answer's
// headers; onPrefill (may be nil) runs once, when they are known or at
// the end.
func (c *Client) sidecar(prefill string, res *results.Result, now func() time.Duration, onPrefill func(),
	send func(x *sendExtras)) {
	u, err := url.Parse(BaseURL(prefill))
	if err != nil || u.Host == "" {
		res.Sent, res.PD.Sent = now(), now()
		c.fail(res, now, results.ErrConnect, fmt.Sprintf("prefill backend address %q: not a URL", prefill))
		return
	}
	x := &sendExtras{header: map[string]string{prefillerHeader: u.Host}, onHeaders: func(h http.Header) {
		if d, ok := headerSeconds(h, prefillHeader); ok {
			res.PD.Done = res.Sent + d
		}
		res.PD.Transfer, res.PD.TransferKnown = headerSeconds(h, transferHeader)
		if onPrefill != nil {
			onPrefill()
			onPrefill = nil
		}
	}}
	send(x)
	res.PD.Sent = res.Sent
	if onPrefill != nil {
		onPrefill()
	}
}

// headerSeconds reads a header of seconds (ok false when absent or bad).
func headerSeconds(h http.Header, name string) (time.Duration, bool) {
	v, err := strconv.ParseFloat(h.Get(name), 64)
	if err != nil || v < 0 {
		return 0, false
	}
	return time.Duration(v * float64(time.Second)), true
}

// prefill sends the prefill request of vLLM's disaggregated proxy: req
// with max_tokens 1, not streamed, kv_transfer_params do_remote_decode.
// It returns the answer's kv_transfer_params unchanged, or an error
// class and error (ErrNoKVParams when the answer has none).
func (c *Client) prefill(ctx context.Context, base string, req *traces.Request, ph *results.PrefillPhase) (json.RawMessage, string, error) {
	rctx, cancel := context.WithTimeout(ctx, c.o.FirstByteTimeout+c.o.IdleTimeout)
	defer cancel()
	hreq, class, err := c.newRequest(rctx, base, req, &sendExtras{body: prefillBody})
	if err != nil {
		return nil, class, err
	}
	return c.prefillExchange(ctx, rctx, base, hreq, ph)
}

// prefillExchange sends a built prefill request and reads its answer's
// kv_transfer_params (see prefill); rctx bounds the exchange.
func (c *Client) prefillExchange(ctx, rctx context.Context, base string, hreq *http.Request, ph *results.PrefillPhase) (json.RawMessage, string, error) {
	hreq.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(hreq)
	if err != nil {
		return nil, classify(ctx, rctx, err), err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, statusClass(resp.StatusCode), fmt.Errorf("%s", httpErrorText(resp, resp.Body))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, classify(ctx, rctx, err), err
	}
	var ans struct {
		KV    json.RawMessage `json:"kv_transfer_params"`
		Usage struct {
			Details struct {
				Cached int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, results.ErrBadPayload, fmt.Errorf("prefill answer: %w", err)
	}
	ph.CachedTokens = ans.Usage.Details.Cached
	if len(ans.KV) == 0 || bytes.Equal(ans.KV, []byte("null")) {
		return nil, results.ErrNoKVParams, fmt.Errorf("the prefill answer of %s carries no kv_transfer_params", base)
	}
	return ans.KV, "", nil
}

// prefillBody turns a request body into vLLM's proxy's prefill request.
func prefillBody(v map[string]any) {
	v["max_tokens"], v["stream"] = 1, false
	delete(v, "stream_options")
	delete(v, "min_tokens")
	if _, ok := v["max_completion_tokens"]; ok {
		v["max_completion_tokens"] = 1
	}
	v["kv_transfer_params"] = map[string]any{"do_remote_decode": true, "do_remote_prefill": false,
		"remote_engine_id": nil, "remote_block_ids": nil, "remote_host": nil, "remote_port": nil}
}
