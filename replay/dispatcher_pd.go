package replay

import (
	"errors"
	"fmt"
	"time"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Backend roles in prefill/decode disaggregation (PDOptions.Roles), as
// llm-d labels its pods (llm-d.ai/role: prefill, decode or both).
const (
	RolePrefill = "prefill"
	RoleDecode  = "decode"
	RoleBoth    = "both"
)

// PDOptions configure prefill/decode disaggregation: llm-d's decode-first
// rule (pd-profile-handler, llm-d/llm-d-inference-scheduler). The Run's
// Router picks the decode Backend among those of role decode or both;
// when the prompt tokens it does not expect cached there reach
// Threshold, Prefill picks the prefill Backend among those of role
// prefill or both (the decode Backend excepted), else the decode Backend
// serves the Request alone.
type PDOptions struct {
	// Prefill picks prefill Backends; any registered Router.
	Prefill policies.Router
	// Roles are the Backends' roles by Index; a Backend past the end (one
	// that joined mid-run) has RoleBoth.
	Roles []string
	// Threshold is the least number of uncached prompt tokens (prompt
	// minus the decode pick's predicted hit) that disaggregates a
	// Request (default 0: every Request, as llm-d's pd-profile-handler
	// with its default threshold 0).
	Threshold int
	// Protocol chains the phases on live Backends: PDTwoStep (default)
	// or PDSidecar. Simulations model the exchange itself.
	Protocol string
	// RoleOf, when set, gives the role of a Backend that joins mid-run
	// by its URL (discovery: the role of the service it was found
	// under); nil: RoleBoth.
	RoleOf func(url string) string
}

// PrefillPick is the prefill half of a disaggregated Dispatch.
type PrefillPick struct {
	// Backend is the prefill Backend's Index.
	Backend int
	// PredictedHitTokens is the prefill Router's expected prefix hit.
	PredictedHitTokens int
}

// Validate checks the roles of n Backends: each a known role, at least
// one Backend able to prefill and one able to decode; the errors name
// what is missing.
func (o *PDOptions) Validate(n int) error {
	if o.Prefill == nil {
		return errors.New("P/D: no prefill router")
	}
	if o.Threshold < 0 {
		return fmt.Errorf("P/D threshold %d: want ≥ 0", o.Threshold)
	}
	switch o.Protocol {
	case "", results.PDTwoStep, results.PDSidecar:
	default:
		return fmt.Errorf("P/D protocol %q: want %s or %s", o.Protocol, results.PDTwoStep, results.PDSidecar)
	}
	pre, dec := 0, 0
	for i := range n {
		switch r := o.role(i); r {
		case RolePrefill:
			pre++
		case RoleDecode:
			dec++
		case RoleBoth:
			pre, dec = pre+1, dec+1
		default:
			return fmt.Errorf("backend %d role %q: want prefill, decode or both", i, r)
		}
	}
	switch {
	case pre == 0:
		return fmt.Errorf("P/D run without any prefill backend (%d backends, none of role prefill or both)", n)
	case dec == 0:
		return fmt.Errorf("P/D run without any decode backend (%d backends, none of role decode or both)", n)
	}
	return nil
}

// role is Backend i's role.
func (o *PDOptions) role(i int) string {
	if i < len(o.Roles) && o.Roles[i] != "" {
		return o.Roles[i]
	}
	return RoleBoth
}

// pdState is a Dispatcher's disaggregation state.
type pdState struct {
	o    *PDOptions
	hits *policies.HitModel // nil when the prefill Router predicts its own hits
	// pending maps a Request to its prefill Backend until PrefillDone.
	pending map[*traces.Request]int
	// joined holds the roles of Backends that joined mid-run.
	joined map[int]string
}

// role is Backend i's role: given, or found when it joined.
func (p *pdState) role(i int) string {
	if r, ok := p.joined[i]; ok {
		return r
	}
	return p.o.role(i)
}

// join records the role of Backend i, which joined at url.
func (p *pdState) join(i int, url string) {
	if p.o.RoleOf == nil || i < len(p.o.Roles) {
		return
	}
	if r := p.o.RoleOf(url); r == RolePrefill || r == RoleDecode || r == RoleBoth {
		p.joined[i] = r
	}
}

// SetPD makes the Dispatcher disaggregate prefill and decode (o checked
// by PDOptions.Validate).
func (d *Dispatcher) SetPD(o *PDOptions) {
	d.pd = &pdState{o: o, hits: policies.HitModelFor(o.Prefill), pending: map[*traces.Request]int{}, joined: map[int]string{}}
}

// routePD picks the decode Backend, then the prefill Backend when the
// uncached prompt reaches the threshold.
func (d *Dispatcher) routePD(now time.Duration, req *traces.Request, disp *Dispatch) error {
	st := d.tracker.Snapshot(now)
	st.Backends = withRoom(st.Backends, d.capacity, reqTokens(req))
	dec := policies.State{Now: now, Backends: d.pd.pool(st.Backends, RoleDecode, -1)}
	if len(dec.Backends) == 0 {
		dec.Backends = d.pd.pool(d.tracker.Snapshot(now).Backends, RoleDecode, -1)
	}
	ch, err := d.pick(d.router, req, dec)
	if err != nil {
		return err
	}
	d.hits.Fill(req, dec, &ch)
	disp.Backend, disp.PredictedHitTokens = ch.Backend, ch.PredictedHitTokens
	if req.InputTokens-ch.PredictedHitTokens < d.pd.o.Threshold {
		return nil
	}
	pre := policies.State{Now: now, Backends: d.pd.pool(st.Backends, RolePrefill, ch.Backend)}
	if len(pre.Backends) == 0 {
		return nil // no other Backend can prefill: decode alone
	}
	pc, err := d.pick(d.pd.o.Prefill, req, pre)
	if err != nil {
		return err
	}
	d.pd.hits.Fill(req, pre, &pc)
	disp.Prefill = &PrefillPick{Backend: pc.Backend, PredictedHitTokens: pc.PredictedHitTokens}
	d.tracker.OnDispatch(pc.Backend, prefillTokens(req))
	d.pd.pending[req] = pc.Backend
	return nil
}

// pool returns the Backends of bs that may take phase role, but not skip.
func (p *pdState) pool(bs []policies.Backend, role string, skip int) []policies.Backend {
	out := make([]policies.Backend, 0, len(bs))
	for _, b := range bs {
		if r := p.role(b.Index); b.Index != skip && (r == RoleBoth || r == role) {
			out = append(out, b)
		}
	}
	return out
}

// prefillTokens is a prefill's footprint: the prompt and one token.
func prefillTokens(r *traces.Request) int { return r.InputTokens + 1 }

// PrefillDone records the end of req's prefill phase (res.PD filled) at
// now: its prefill Backend is free of it and the prefill Router learns
// the outcome. Done calls it when it was not called before.
func (d *Dispatcher) PrefillDone(now time.Duration, req *traces.Request, res *results.Result) {
	if d.pd == nil {
		return
	}
	b, ok := d.pd.pending[req]
	if !ok {
		return
	}
	delete(d.pd.pending, req)
	ph := &results.Result{Backend: b, Intended: res.Intended, Sent: res.Sent, Done: now, ErrClass: res.PD.ErrClass,
		CompletionTokens: 1, PromptTokens: req.InputTokens, CachedTokens: res.PD.CachedTokens}
	if res.PD.Done > 0 {
		ph.FirstToken = res.PD.Done
	}
	d.tracker.OnDone(b, prefillTokens(req), ph)
	if fb, ok := d.pd.o.Prefill.(policies.Feedback); ok {
		fb.Done(now, req, outcome(req, ph))
	}
}
