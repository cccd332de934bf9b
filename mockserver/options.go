package mockserver

import (
	"fmt"
	"github.com/tracebench/tracebench/dialect"
	"log/slog"
	"strings"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// Options configure one mock server replica.
type Options struct {
	// Engine configures the step engine (engine.DefaultConfig when zero).
	Engine engine.Config
	// Tokenizer turns prompt text into token ids: "whitespace" (default),
	// "character" or "tiktoken" (cl100k_base, loaded offline).
	Tokenizer string
	// TimeScale stretches model time into wall time: 1 (default) is real
	// time, 2 runs the model twice as slow, 0.5 twice as fast.
	TimeScale float64
	// Faults are injected failures (none by default).
	Faults FaultConfig
	// ModelName is the served model (default "mock-model"). Requests for
	// another model name are served as a LoRA adapter of it: its prefix
	// cache entries are kept apart, as vLLM salts block hashes with the
	// adapter. With StrictModel they get vLLM's 404 instead.
	ModelName string
	// StrictModel rejects unknown model names with 404 (default false).
	StrictModel bool
	// LoRAModules lists the adapters served (vLLM --lora-modules). When
	// set, a request naming any other model than ModelName or these gets
	// vLLM's 404 for an unknown model, as with StrictModel. Adapters count
	// against Engine.LoRA.MaxLoras.
	LoRAModules []string
	// MaxQueue bounds the waiting requests; a request arriving when that
	// many wait gets 429 (default 0: unbounded).
	MaxQueue int
	// BatchWindow applies to static batching only: when a request reaches
	// an idle engine, the driver waits this long (wall time) before the
	// first step, so the requests of a batch a client sends together
	// start together (default 5 ms with static batching; negative: none).
	BatchWindow time.Duration
	// Dialect is the server the mock answers as: dialect.VLLM,
	// dialect.SGLang, dialect.LlamaCpp or dialect.OpenAI (default
	// dialect.Default; see dialect.go for what changes).
	Dialect string
	// KVEvents, when KVEvents.Endpoint is set, publishes the replica's
	// prefix cache changes in vLLM's KV event format (default: off).
	KVEvents KVEventsOptions
	// Role is the replica's part in prefill/decode disaggregation:
	// RoleBoth (default: serves plain, prefill and decode requests),
	// RolePrefill (refuses kv_transfer_params.do_remote_prefill) or
	// RoleDecode (refuses do_remote_decode); see pd.go.
	Role string
	// Logger receives the server's log lines: a rate-limited WARN when a
	// step runs over 10 ms late and the step lateness summary at Close
	// (default slog.Default() at NewServer).
	Logger *slog.Logger
}

// DefaultBatchWindow is the static batching gather window.
const DefaultBatchWindow = 5 * time.Millisecond

// DefaultModelName is the model name served when Options.ModelName is empty.
const DefaultModelName = "mock-model"

// withDefaults fills zero fields with defaults.
func (o Options) withDefaults() Options {
	if o.Engine.BlockSize == 0 && o.Engine.NumGPUBlocks == 0 && o.Engine.Batching == "" {
		o.Engine = engine.DefaultConfig()
	}
	if o.Tokenizer == "" {
		o.Tokenizer = "whitespace"
	}
	if o.TimeScale == 0 {
		o.TimeScale = 1
	}
	if o.ModelName == "" {
		o.ModelName = DefaultModelName
	}
	if o.Dialect == "" {
		o.Dialect = dialect.Default
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.BatchWindow == 0 && o.Engine.Batching == engine.Static {
		o.BatchWindow = DefaultBatchWindow
	}
	return o
}

// validate reports the first invalid option.
func (o Options) validate() error {
	if !(o.TimeScale > 0 && o.TimeScale <= 1e6) {
		return fmt.Errorf("mock options: time scale %g: want in (0, 1e6]", o.TimeScale)
	}
	if d, err := dialect.Lookup(o.Dialect); err != nil {
		return fmt.Errorf("mock options: %w", err)
	} else if d.Name != o.Dialect {
		return fmt.Errorf("mock options: dialect %q: want %s", o.Dialect, strings.Join(dialect.Names(), ", "))
	}
	if o.MaxQueue < 0 {
		return fmt.Errorf("mock options: max queue %d: want ≥ 0", o.MaxQueue)
	}
	if err := validRole(o.Role); err != nil {
		return fmt.Errorf("mock options: %w", err)
	}
	if err := o.Engine.Validate(); err != nil {
		return fmt.Errorf("mock options: %w", err)
	}
	return o.Faults.Validate()
}

// FaultConfig configures injected faults. Every probability is drawn per
// request (per step for stalls, per connection for refusals) from a
// generator seeded by the replica's engine seed, so a run repeats.
type FaultConfig struct {
	// ErrorRate is the probability that a request is answered at once
	// with ErrorStatus instead of being served (default 0).
	ErrorRate float64
	// ErrorStatus is 429, 500 or 503 (default 503).
	ErrorStatus int
	// RetryAfter, when positive, is sent as Retry-After (whole seconds,
	// rounded up) with injected errors.
	RetryAfter time.Duration
	// StallRate is the probability that a step is followed by a stall of
	// Stall (a TBT spike for every running request).
	StallRate float64
	// Stall is the stall length in wall time (default 500 ms).
	Stall time.Duration
	// DisconnectRate is the probability that a streamed response is cut
	// (the connection closed without [DONE]) after DisconnectAfter tokens.
	DisconnectRate float64
	// DisconnectAfter is the tokens sent before a cut (default 1).
	DisconnectAfter int
	// SlowFirstByteRate is the probability that a response is held for
	// SlowFirstByte before the request reaches the engine.
	SlowFirstByteRate float64
	// SlowFirstByte is that delay in wall time (default 2 s).
	SlowFirstByte time.Duration
	// RefuseRate is the probability that an accepted connection is reset
	// at once (the client sees a connection error).
	RefuseRate float64
}

// withDefaults fills durations and counts left zero.
func (f FaultConfig) withDefaults() FaultConfig {
	if f.ErrorStatus == 0 {
		f.ErrorStatus = 503
	}
	if f.Stall == 0 {
		f.Stall = 500 * time.Millisecond
	}
	if f.DisconnectAfter == 0 {
		f.DisconnectAfter = 1
	}
	if f.SlowFirstByte == 0 {
		f.SlowFirstByte = 2 * time.Second
	}
	return f
}

// Validate reports the first invalid field: a rate outside [0, 1], an
// error status other than 0 (default), 429, 500 or 503, or a negative
// duration or count. NewServer calls it; a command line can call it to
// reject bad flags early.
func (f FaultConfig) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"error rate", f.ErrorRate}, {"stall rate", f.StallRate}, {"disconnect rate", f.DisconnectRate},
		{"slow first byte rate", f.SlowFirstByteRate}, {"refuse rate", f.RefuseRate}} {
		if !(p.v >= 0 && p.v <= 1) {
			return fmt.Errorf("mock faults: %s %g: want in [0, 1]", p.name, p.v)
		}
	}
	switch f.ErrorStatus {
	case 0, 429, 500, 503:
	default:
		return fmt.Errorf("mock faults: error status %d: want 429, 500 or 503", f.ErrorStatus)
	}
	if f.RetryAfter < 0 || f.Stall < 0 || f.SlowFirstByte < 0 || f.DisconnectAfter < 0 {
		return fmt.Errorf("mock faults: negative duration or count")
	}
	return nil
}
