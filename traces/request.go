package traces

import "time"

// MaxTokens bounds every token count a trace states or a generator is
// asked for (2^24 = 16,777,216 tokens, above the context window of any
// served model): a larger count is a malformed record, so one corrupt
// number cannot make a replay synthesise a prompt of gigabytes.
const MaxTokens = 1 << 24

// Message is one chat message of a Request sent to a chat endpoint.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role string `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
}

// Request is one trace record: what to send and when.
//
// The prompt is given in one of three forms, checked in this order by
// renderers: BlockIDs (token-exact replay, each id one block of BlockSize
// tokens), Messages (chat), Prompt (plain text). InputTokens is the prompt
// length in tokens as the trace states it; OutputTokens is the number of
// tokens the server is asked to generate (max_tokens, with ignore_eos).
type Request struct {
	// ID is unique within a trace (a line number when the trace has none).
	ID string `json:"id"`
	// Arrival is the offset from the start of the trace at which the
	// Request should be sent (after time scaling).
	Arrival time.Duration `json:"arrival_ns"`
	// User identifies the tenant; empty when the trace has none.
	User string `json:"user,omitempty"`
	// Session groups the turns of one conversation; empty when none.
	Session string `json:"session,omitempty"`
	// Turn is the 0-based turn index within Session.
	Turn int `json:"turn,omitempty"`
	// After lists the IDs of the Requests that must finish before this one
	// is sent in a closed-loop replay (a parent's next turn waits for its
	// sub-agents; a sub-agent's first request waits for its parent's).
	// Empty: the previous Request of Session as the Source yields them,
	// none for a session's first Request. Open-loop replays ignore it.
	After []string `json:"after,omitempty"`
	// Think is the pause, in a closed-loop replay, between the last of
	// this Request's predecessors finishing and its send: what the user
	// reads and types, or what the agent's tools run. Used only when
	// ThinkKnown; otherwise the trace gap (Arrival minus the
	// predecessor's Arrival) stands in.
	Think time.Duration `json:"think_ns,omitempty"`
	// ThinkKnown says that Think was stated by the trace or generator
	// (a Think of 0 then means "at once").
	ThinkKnown bool `json:"think_known,omitempty"`
	// Model names the model to request; empty means the run's default.
	Model string `json:"model,omitempty"`
	// LoRA names an adapter; requests for different adapters never share
	// a prefix cache.
	LoRA string `json:"lora,omitempty"`
	// Prompt is the prompt text for completions endpoints.
	Prompt string `json:"prompt,omitempty"`
	// Messages is the conversation for chat endpoints.
	Messages []Message `json:"messages,omitempty"`
	// BlockIDs stands for the prompt as blocks of BlockSize tokens; equal
	// ids at equal positions mean equal prefix blocks (Mooncake hash_ids).
	BlockIDs []uint64 `json:"block_ids,omitempty"`
	// TokenIDs is the prompt as token ids, when the trace gives them.
	TokenIDs []int `json:"token_ids,omitempty"`
	// BlockSize is the number of tokens per block id (Mooncake: 512).
	BlockSize int `json:"block_size,omitempty"`
	// InputTokens is the prompt length in tokens (0 when unknown).
	InputTokens int `json:"input_tokens"`
	// OutputTokens is the number of tokens to generate.
	OutputTokens int `json:"output_tokens"`
	// Slot, when set, is the llama.cpp server slot (its id_slot, from 0)
	// the Request must run on; nil lets the server choose. Only the
	// llama.cpp dialect sends it, and only the native format carries it
	// (the calibration probe pins decoders to chosen slots with it).
	Slot *int `json:"slot,omitempty"`
	// PredictedOutput is a length predictor's estimate of OutputTokens,
	// filled by a Queue that needs one (0 when unset).
	PredictedOutput int `json:"-"`
	// Recorded is what the trace recorded about the original request
	// beyond what a replay sends (nil when nothing): statistics read it,
	// replays ignore it.
	Recorded *Recorded `json:"recorded,omitempty"`
}

// Recorded describes the original request behind a Request, as a trace
// recorded it.
type Recorded struct {
	// Model is the model that served it originally; not a name the
	// replayed fleet serves, so it is never sent.
	Model string `json:"model,omitempty"`
	// OutputTypes are the kinds of content its response held (agentic
	// traces: "text", "thinking", "tool_use"); empty when unrecorded.
	OutputTypes []string `json:"output_types,omitempty"`
}

// Key returns the affinity key of r: its session, else its user, else its ID.
func (r *Request) Key() string {
	switch {
	case r.Session != "":
		return r.Session
	case r.User != "":
		return r.User
	}
	return r.ID
}
