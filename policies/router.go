package policies

import (
	"time"

	"github.com/tracebench/tracebench/traces"
)

// Choice is a Router's decision for one Request.
type Choice struct {
	// Backend is the Index of the chosen Backend (State.Backends[i].Index;
	// the slice may be a filtered subset, so this is not a slice position).
	Backend int
	// PredictedHitTokens is the number of prompt tokens expected cached on
	// the chosen Backend. A HitPredictor sets it from its own cache view;
	// other Routers leave it zero and the replay fills it from a shared
	// HitModel.
	PredictedHitTokens int
	// Reason is a short label of the branch taken ("prefix", "imbalance",
	// "least-request", ...), for debugging and reports.
	Reason string
}

// Outcome is what the replay learned about a finished Request, fed back to
// policies that implement Feedback.
type Outcome struct {
	// Backend is the index of the Backend that served the Request.
	Backend int
	// PromptTokens and OutputTokens are the server-reported token counts
	// (the trace's when the server sent no usage).
	PromptTokens, OutputTokens int
	// CachedTokens is usage.prompt_tokens_details.cached_tokens.
	CachedTokens int
	// TTFT is measured from the intended arrival; TBT is the decode time
	// per output token, (done − first token) / (tokens − 1), or the mean
	// gap between content chunks when fewer than two tokens came back.
	TTFT, TBT time.Duration
	// Failed is true when the Request ended in an error.
	Failed bool
}

// Router picks a Backend for a Request.
type Router interface {
	// Name returns the registry name (kebab-case).
	Name() string
	// Pick chooses one of st.Backends for req. It returns an error only
	// when no Backend can be chosen (for example, none is given).
	Pick(req *traces.Request, st State) (Choice, error)
}

// Feedback is implemented by policies that learn from finished Requests.
// The replay calls Done once per Request dispatched to a Backend.
type Feedback interface {
	Done(now time.Duration, req *traces.Request, out Outcome)
}

// StopReporter is implemented by policies with run-level figures for the
// results file's stop line (Stop.Extra), read once after the Run.
type StopReporter interface {
	StopExtras() map[string]float64
}

// TokenFeedback is implemented by policies that account tokens as they
// stream back; the replay calls Tokens with the count of new output tokens.
type TokenFeedback interface {
	Tokens(now time.Duration, req *traces.Request, n int)
}
