package metrics

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// PDSummary is the prefill/decode split of a disaggregated Run (one whose
// header names Backend roles).
type PDSummary struct {
	// Disaggregated counts Requests sent to a prefill Backend first;
	// DecodeOnly those a decode Backend served alone (under the
	// threshold, or no other Backend could prefill).
	Disaggregated int64 `json:"disaggregated"`
	DecodeOnly    int64 `json:"decode_only"`
	// Fallbacks counts Requests whose prefill failed or answered without
	// kv_transfer_params and that were sent to their decode Backend alone.
	Fallbacks int64 `json:"fallbacks"`
	// PrefillErrors counts failed prefill phases by error class
	// (results.ErrNoKVParams among them).
	PrefillErrors map[string]int64 `json:"prefill_errors"`
	// Prefill, Transfer and FirstDecode split the TTFT of successful
	// disaggregated Requests whose split is known: prefill answer,
	// KV transfer, and the decode's first token after it.
	Prefill     Dist `json:"prefill"`
	Transfer    Dist `json:"transfer"`
	FirstDecode Dist `json:"first_decode"`
	// SplitUnknown counts successful disaggregated Requests whose split
	// the servers did not report (a sidecar that names no times).
	SplitUnknown int64 `json:"split_unknown"`
	// Roles is the load of each role.
	Roles []RoleLoad `json:"roles"`
}

// RoleLoad is the work of the Backends of one role.
type RoleLoad struct {
	// Role is "prefill", "decode" or "both"; Backends how many have it.
	Role     string `json:"role"`
	Backends int    `json:"backends"`
	// Phases counts the prefill and decode phases they served.
	Phases int64 `json:"phases"`
	// Occupancy is the mean number of phases in flight per Backend of
	// the role over the measured window (Σ phase durations / (window ×
	// Backends)): the role's utilisation as a load; NaN without a window.
	Occupancy float64 `json:"occupancy"`
}

// pdAcc accumulates a PDSummary.
type pdAcc struct {
	roles                          []string
	s                              PDSummary
	prefill, transfer, firstDecode *hdrhistogram.Histogram
	busy                           map[string]time.Duration
	phases                         map[string]int64
}

func newPDAcc(roles []string) *pdAcc {
	if len(roles) == 0 {
		return nil
	}
	return &pdAcc{roles: roles, s: PDSummary{PrefillErrors: map[string]int64{}},
		prefill: newHist(), transfer: newHist(), firstDecode: newHist(),
		busy: map[string]time.Duration{}, phases: map[string]int64{}}
}

// role is Backend i's role (both past the header's list).
func (p *pdAcc) role(i int) string {
	if i >= 0 && i < len(p.roles) && p.roles[i] != "" {
		return p.roles[i]
	}
	return replay.RoleBoth
}

// add folds one Result in.
func (p *pdAcc) add(r *results.Result) {
	if r.Backend < 0 {
		return
	}
	decodeFrom := r.Sent
	if pd := r.PD; pd != nil {
		p.s.Disaggregated++
		if pd.ErrClass != "" {
			p.s.PrefillErrors[pd.ErrClass]++
		}
		if pd.Fallback {
			p.s.Fallbacks++
		}
		if pd.Done > pd.Sent {
			p.phase(pd.Backend, pd.Done-pd.Sent)
			decodeFrom = pd.Done + pd.Transfer
		}
		p.split(r)
	} else {
		p.s.DecodeOnly++
	}
	if r.Done > decodeFrom {
		p.phase(r.Backend, r.Done-decodeFrom)
	}
}

// phase counts d of work on Backend b.
func (p *pdAcc) phase(b int, d time.Duration) {
	role := p.role(b)
	p.busy[role] += d
	p.phases[role]++
}

// split records the TTFT split of a successful disaggregated Result.
func (p *pdAcc) split(r *results.Result) {
	if !r.OK() || r.FirstToken == 0 || r.PD.Fallback {
		return
	}
	pre, ok1 := r.PrefillTime()
	tr, ok2 := r.TransferTime()
	fd, ok3 := r.FirstDecodeTime()
	if !ok1 || !ok2 || !ok3 {
		p.s.SplitUnknown++
		return
	}
	recordDur(p.prefill, pre)
	recordDur(p.transfer, tr)
	recordDur(p.firstDecode, fd)
}

// finish completes the summary over a window of secs seconds.
func (p *pdAcc) finish(secs float64) *PDSummary {
	if p == nil {
		return nil
	}
	s := p.s
	s.Prefill, s.Transfer, s.FirstDecode = distOf(p.prefill), distOf(p.transfer), distOf(p.firstDecode)
	count := map[string]int{}
	for i := range p.roles {
		count[p.role(i)]++
	}
	for _, role := range []string{replay.RolePrefill, replay.RoleDecode, replay.RoleBoth} {
		if count[role] == 0 {
			continue
		}
		s.Roles = append(s.Roles, RoleLoad{Role: role, Backends: count[role], Phases: p.phases[role],
			Occupancy: Ratio(p.busy[role].Seconds(), secs*float64(count[role]))})
	}
	return &s
}
