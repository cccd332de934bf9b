package results

import "time"

// PrefillPhase is the prefill part of a Request served with
// prefill/decode disaggregation: its prefill on one Backend, the KV
// transfer, then its decode on Result.Backend. Times are Run offsets.
type PrefillPhase struct {
	// Backend is the Index of the prefill Backend.
	Backend int `json:"backend"`
	// Protocol is how the phases were chained: PDTwoStep or PDSidecar.
	Protocol string `json:"protocol"`
	// Sent is when the prefill was sent (the two-step exchange's first
	// request, or the sidecar request to the decode Backend).
	Sent time.Duration `json:"sent"`
	// Done is when the prefill answer arrived (0: unknown, as behind a
	// sidecar that does not say).
	Done time.Duration `json:"done,omitempty"`
	// Transfer is the KV transfer time the decode server reported or the
	// simulator modelled; TransferKnown says whether it is known.
	Transfer      time.Duration `json:"transfer,omitempty"`
	TransferKnown bool          `json:"transfer_known,omitempty"`
	// CachedTokens is the prompt tokens the prefill Backend found in its
	// prefix cache (0 when unknown).
	CachedTokens int `json:"cached_tokens,omitempty"`
	// ErrClass and Err describe a failed prefill: an Err* class, or
	// ErrNoKVParams for an answer without kv_transfer_params.
	ErrClass string `json:"err_class,omitempty"`
	Err      string `json:"err,omitempty"`
	// Fallback reports that the Request was then sent to its decode
	// Backend alone, which ran the prefill itself.
	Fallback bool `json:"fallback,omitempty"`
}

// P/D protocols (PrefillPhase.Protocol, PDOptions.Protocol).
const (
	// PDTwoStep is vLLM's disaggregated-serving proxy exchange: the
	// client sends the prefill (max_tokens 1, kv_transfer_params
	// do_remote_decode) to the prefill Backend, then the Request with
	// the answer's kv_transfer_params to the decode Backend.
	PDTwoStep = "two-step"
	// PDSidecar is llm-d's: one request to the decode Backend naming the
	// prefill Backend in the x-prefiller-host-port header; the decode
	// side runs the prefill.
	PDSidecar = "sidecar"
	// PDSim marks a disaggregated Request of a simulation.
	PDSim = "sim"
)

// PrefillTime is the prefill phase: PD.Done − PD.Sent (ok false when the
// Request was not disaggregated, its prefill failed or its end is unknown).
func (r *Result) PrefillTime() (time.Duration, bool) {
	if r.PD == nil || r.PD.Done == 0 || r.PD.ErrClass != "" {
		return 0, false
	}
	return r.PD.Done - r.PD.Sent, true
}

// TransferTime is the KV transfer time (ok false when unknown).
func (r *Result) TransferTime() (time.Duration, bool) {
	if _, ok := r.PrefillTime(); !ok || !r.PD.TransferKnown {
		return 0, false
	}
	return r.PD.Transfer, true
}

// FirstDecodeTime is the rest of the TTFT after the prefill and the
// transfer: FirstToken − PD.Done − Transfer (ok false when either is
// unknown or no token arrived).
func (r *Result) FirstDecodeTime() (time.Duration, bool) {
	tr, ok := r.TransferTime()
	if !ok || r.FirstToken == 0 {
		return 0, false
	}
	return max(0, r.FirstToken-r.PD.Done-tr), true
}

// LocalCachedTokens is the prompt tokens found in a prefix cache instead
// of computed: the prefill Backend's hit for a disaggregated Request
// (the decode server counts the transferred prompt as cached, as vLLM
// does), else CachedTokens.
func (r *Result) LocalCachedTokens() int {
	if r.PD != nil && r.PD.ErrClass == "" && !r.PD.Fallback {
		return r.PD.CachedTokens
	}
	return r.CachedTokens
}
