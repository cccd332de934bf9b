package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tracebench/tracebench/results"
)

// ForwardPD passes f through disaggregated, as DoPD sends a Request:
// with PDTwoStep, f's body made vLLM's prefill request (max_tokens 1, not
// streamed, kv_transfer_params do_remote_decode) goes to prefill, then
// f's body with the answer's kv_transfer_params to decode, whose answer
// goes to f.Reply; with PDSidecar, f goes to decode naming prefill in
// llm-d's header. res.PD (Backend and Protocol set by the caller) is
// stamped as DoPD stamps it, and a prefill answer without
// kv_transfer_params sends f to decode alone, counted as ErrNoKVParams.
// onPrefill, if not nil, is called when the prefill phase ended.
func (c *Client) ForwardPD(ctx context.Context, prefill, decode string, f *Forward, res *results.Result,
	now func() time.Duration, onTokens func(n int), onPrefill func()) {
	c.disaggregated(prefill, res, now, onPrefill, func() (json.RawMessage, string, error) {
		return c.forwardPrefill(ctx, prefill, f, res.PD)
	}, func(x *sendExtras) { c.forwardEdited(ctx, decode, f, res, now, onTokens, x) })
}

// forwardEdited forwards f, its JSON body edited by x.body first when
// set (a body that is not JSON fails res as a bad payload).
func (c *Client) forwardEdited(ctx context.Context, base string, f *Forward, res *results.Result,
	now func() time.Duration, onTokens func(n int), x *sendExtras) {
	if x != nil && x.body != nil {
		dec, err := editBody(f, x.body)
		if err != nil {
			res.Sent = now()
			c.fail(res, now, results.ErrBadPayload, err.Error())
			return
		}
		f = dec
		x = &sendExtras{header: x.header, onHeaders: x.onHeaders}
	}
	c.forward(ctx, base, f, res, now, onTokens, x)
}

// forwardPrefill sends the prefill request made from f's body to base.
func (c *Client) forwardPrefill(ctx context.Context, base string, f *Forward, ph *results.PrefillPhase) (json.RawMessage, string, error) {
	rctx, cancel := context.WithTimeout(ctx, c.o.FirstByteTimeout+c.o.IdleTimeout)
	defer cancel()
	pf, err := editBody(f, prefillBody)
	if err != nil {
		return nil, results.ErrBadPayload, err
	}
	hreq, err := c.forwardRequest(rctx, base, pf, nil)
	if err != nil {
		return nil, results.ErrConnect, err
	}
	return c.prefillExchange(ctx, rctx, base, hreq, ph)
}

// editBody returns a copy of f, headers and Reply kept, whose JSON body
// edit changed.
func editBody(f *Forward, edit func(map[string]any)) (*Forward, error) {
	d := json.NewDecoder(bytes.NewReader(f.Body))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil || v == nil {
		return nil, fmt.Errorf("request body is not a JSON object: %v", err)
	}
	edit(v)
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode request body: %w", err)
	}
	out := *f
	out.Body = b
	return &out, nil
}
