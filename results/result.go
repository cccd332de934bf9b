package results

import "time"

// Error classes of a Result (Result.ErrClass). Empty means success.
const (
	ErrConnect      = "connect"       // dial failed or connection refused
	ErrTimeout      = "timeout"       // connect, first-byte or idle-stream timeout
	ErrHTTP4xx      = "http-4xx"      // server answered 4xx (429 included, 404 not)
	ErrUnknownModel = "unknown-model" // server answered 404: the model or LoRA adapter is not served (vLLM)
	ErrHTTP5xx      = "http-5xx"      // server answered 5xx
	ErrStreamBroken = "stream-broken" // connection cut or stream ended without [DONE] and finish
	ErrStreamError  = "stream-error"  // server sent an error frame inside the stream
	ErrBadPayload   = "bad-payload"   // unparseable JSON or SSE
	ErrRejected     = "rejected"      // a client-side Queue rejected the Request (rpm)
	ErrCanceled     = "canceled"      // the Run was stopped before the Request finished
	ErrNoKVParams   = "no-kv-params"  // a prefill answer carried no kv_transfer_params (PrefillPhase.ErrClass)
)

// GapBin counts inter-chunk gaps of one value: V microseconds (rounded to
// two significant digits), N occurrences. A Result's TBT distribution is a
// short list of GapBins, so results files carry every gap without growing
// with tokens.
type GapBin struct {
	V int64 `json:"v"`
	N int64 `json:"n"`
}

// Result is the outcome of one Request. Times are offsets from the start
// of the Run; durations marshal as integer nanoseconds.
type Result struct {
	// Seq is the dispatch order of the Request within the Run (0-based).
	Seq int64 `json:"seq"`
	// ID, User and Session are copied from the Request.
	ID      string `json:"id"`
	User    string `json:"user,omitempty"`
	Session string `json:"session,omitempty"`
	// Backend is the Index of the Backend that served it (-1: none).
	Backend int `json:"backend"`
	// Intended is the trace arrival time; every latency counts from it.
	Intended time.Duration `json:"intended"`
	// Released is when the Queue let the Request go (= Intended for fcfs
	// without a capacity limit).
	Released time.Duration `json:"released"`
	// Sent is when the HTTP request was written.
	Sent time.Duration `json:"sent"`
	// Headers is when response headers arrived (0 when none).
	Headers time.Duration `json:"headers,omitempty"`
	// FirstToken is when the first content-bearing chunk arrived,
	// reasoning included (0: none).
	FirstToken time.Duration `json:"first_token,omitempty"`
	// FirstOutput is when the first chunk with output outside the
	// reasoning channel arrived (0: none: the stream never left its
	// reasoning, or the results file predates the field). Equal to
	// FirstToken for a request that did not reason.
	FirstOutput time.Duration `json:"first_output,omitempty"`
	// Done is when the response ended (success or error).
	Done time.Duration `json:"done"`
	// Chunks counts content-bearing chunks.
	Chunks int `json:"chunks"`
	// Gaps is the distribution of gaps between successive content chunks.
	Gaps []GapBin `json:"gaps,omitempty"`
	// TBTMax is the largest gap.
	TBTMax time.Duration `json:"tbt_max,omitempty"`
	// Stalls are the gaps of at least 4 times the median gap, with when
	// each began (nil when none).
	Stalls []Stall `json:"stalls,omitempty"`
	// InputTokens and OutputTokens are the trace's intended lengths.
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// PromptTokens, CompletionTokens and CachedTokens come from usage
	// (CompletionTokens falls back to the count of streamed tokens).
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	// ReasoningTokens is the output tokens that were reasoning (part of
	// CompletionTokens): the usage's reasoning_tokens when the server
	// reports it, else the count of streamed reasoning chunks.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// NoCached reports that no part of the response carried a cached
	// prompt-token count (CachedTokens is then unknown, not 0). Absent
	// in results files written before it existed, which always knew.
	NoCached bool `json:"no_cached,omitempty"`
	// PredictedHitTokens is the Router's expected prefix hit.
	PredictedHitTokens int `json:"predicted_hit_tokens,omitempty"`
	// Status is the HTTP status (0 when no response).
	Status int `json:"status,omitempty"`
	// ErrClass is one of the Err* constants; empty on success.
	ErrClass string `json:"err_class,omitempty"`
	// Err is the error text (never contains credentials).
	Err string `json:"err,omitempty"`
	// Server is the server's own timings of the Request (llama.cpp's
	// timings object), nil when it sent none.
	Server *ServerTimings `json:"server,omitempty"`
	// Slot is the server slot that served the Request (llama.cpp's
	// id_slot): as the response said, else as the Request named it (the
	// server runs it on no other), nil when neither did.
	Slot *int `json:"id_slot,omitempty"`
	// PD is the prefill phase of a Request served disaggregated, on a
	// prefill Backend then on Backend (nil: one Backend served it all).
	PD *PrefillPhase `json:"pd,omitempty"`
	// Turn is the Request's turn index within its session (0: first).
	Turn int `json:"turn,omitempty"`
	// Think is the pause before this turn after the turn it followed
	// (closed-loop sessions; 0 when none or unknown).
	Think time.Duration `json:"think,omitempty"`
	// Answer keeps the generated text while the session's next turn
	// needs it (nil otherwise); never written.
	Answer *Answer `json:"-"`
}

// OK reports whether the Request succeeded.
func (r *Result) OK() bool { return r.ErrClass == "" }

// TTFT is FirstToken − Intended (0 when no token arrived).
func (r *Result) TTFT() time.Duration {
	if r.FirstToken == 0 {
		return 0
	}
	return r.FirstToken - r.Intended
}

// TTFOT is the time to first output token, FirstOutput − Intended: what
// the user of a reasoning model waits for its answer to start (0 when
// no output token arrived).
func (r *Result) TTFOT() time.Duration {
	if r.FirstOutput == 0 {
		return 0
	}
	return r.FirstOutput - r.Intended
}

// NoOutput reports a successful request whose stream never left its
// reasoning: it has reasoning tokens but no output token.
func (r *Result) NoOutput() bool {
	return r.OK() && r.FirstOutput == 0 && r.ReasoningTokens > 0
}

// ServerTTFT is FirstToken − Sent.
func (r *Result) ServerTTFT() time.Duration {
	if r.FirstToken == 0 {
		return 0
	}
	return r.FirstToken - r.Sent
}

// E2E is Done − Intended.
func (r *Result) E2E() time.Duration { return r.Done - r.Intended }

// QueueWait is Released − Intended.
func (r *Result) QueueWait() time.Duration { return r.Released - r.Intended }

// ScheduleLag is Sent − Released: how late the client sent.
func (r *Result) ScheduleLag() time.Duration { return r.Sent - r.Released }

// TPOT is (Done − FirstToken) / (output tokens − 1); 0 when fewer than two
// tokens were generated.
func (r *Result) TPOT() time.Duration {
	n := r.CompletionTokens
	if n < 2 || r.FirstToken == 0 {
		return 0
	}
	return (r.Done - r.FirstToken) / time.Duration(n-1)
}
