package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
)

func init() { register(newMockCmd) }

// mockOptions are the flags of `tracebench mock`: the fleet's flags
// bound into the library's bench.MockFleet, whose engine configuration
// fleetConfig resolves from the profile (--preset or --profile) and the
// engine flags. Engine holds the engine flags' values; each is applied
// on top of the profile only when its flag was given.
type mockOptions struct {
	fleet   bench.MockFleet
	kv      mockKVFlags
	Preset  string
	Profile string
	Engine  engine.Config // override values, applied when changed
	changed func(name string) bool
}

// newMockCmd is `tracebench mock`.
func newMockCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "mock [--replicas N] [--port P] [--profile NAME|FILE] [flags]",
		Short: "Run mock GPU model servers (vLLM OpenAI API) until interrupted",
		Long: `mock runs N mock model servers on consecutive ports. Each simulates a vLLM
engine in real time: continuous batching under max-num-seqs and a
max-num-batched-tokens budget, a paged KV cache with prefix caching and
recompute preemption, and a per-step latency model
  t = c_step + c_prefill·prefill_tokens + c_decode·b + β·(1 + γ·(b−1)/b)
      + c_attend·attended_keys.
It serves /v1/completions, /v1/chat/completions, /v1/models, /health and
/metrics (vLLM V1 names) and prints the base URLs.

The engine model comes from a profile (--profile: a built-in name or a
YAML file); each engine flag overrides one field. Built-in profiles
('tracebench profiles' describes them): ` + strings.Join(profile.Names(), ", ") + ".",
		Args: cobra.NoArgs,
	}, &mockOptions{})
}

// run serves the fleet the flags describe until the command's context
// ends.
func (o *mockOptions) run(cmd *cobra.Command, _ []string) error {
	o.changed = cmd.Flags().Changed
	return runMock(cmd.Context(), o, cmd.OutOrStdout())
}

// bind declares the mock's flags.
func (o *mockOptions) bind(fs *pflag.FlagSet) {
	f, s := &o.fleet, &o.fleet.Server
	fs.IntVar(&f.Replicas, "replicas", 1, "number of mock servers")
	fs.StringVar(&f.Host, "host", "127.0.0.1", "address to bind")
	fs.IntVar(&f.Port, "port", 8000, "port of the first server; the others take the next ports (0: ephemeral)")
	fs.StringVar(&o.Preset, "preset", profile.DefaultName, "built-in engine profile (same as --profile NAME)")
	fs.StringVar(&o.Profile, "profile", "", "engine profile: a built-in name (see 'tracebench profiles') or a YAML file")
	fs.StringVar(&s.ModelName, "model", mockserver.DefaultModelName, "served model name")
	fs.BoolVar(&s.StrictModel, "strict-model", false,
		"answer 404 for another model name (default: serve it as a LoRA adapter with its own prefix cache)")
	fs.StringSliceVar(&s.LoRAModules, "lora-modules", nil,
		"LoRA adapters served (comma-separated); any other model gets vLLM's 404; sets --max-loras 1 unless given")
	fs.StringVar(&s.Tokenizer, "tokenizer", "whitespace", "prompt tokenizer: whitespace, character or tiktoken")
	fs.StringVar(&s.Dialect, "dialect", dialect.Default, "server dialect to answer in: "+strings.Join(dialect.Names(), ", "))
	fs.Float64Var(&s.TimeScale, "time-scale", 1, "wall time per model time: 2 runs the model twice as slow, 0.5 twice as fast")
	fs.StringVar(&s.Role, "role", mockserver.RoleBoth, "prefill/decode role: prefill (refuses decode requests), "+
		"decode (refuses prefill requests; honours "+mockserver.PrefillerHeader+") or both")
	fs.IntVar(&s.MaxQueue, "max-queue", 0, "waiting requests before answering 429 (0: unbounded)")
	fs.DurationVar(&s.BatchWindow, "batch-window", mockserver.DefaultBatchWindow,
		"static batching: wait after a request reaches an idle engine, so a batch sent together starts together")
	fs.BoolVar(&f.KVEvents, "kv-events", false, fmt.Sprintf("publish KV cache events as vLLM does (ZeroMQ PUB on the HTTP port + %d, "+
		"replay on the HTTP port + %d; free ports with --port 0)", mockserver.KVEventPortOffset, mockserver.KVReplayPortOffset))
	o.kv.bind(fs)
	o.bindEngine(fs)
	o.bindFaults(fs)
}

// bindEngine binds the engine flags; defaults shown are the default preset's.
func (o *mockOptions) bindEngine(fs *pflag.FlagSet) {
	d := engine.DefaultConfig()
	e := &o.Engine
	fs.IntVar(&e.BlockSize, "block-size", d.BlockSize, "tokens per KV cache block")
	fs.IntVar(&e.NumGPUBlocks, "num-gpu-blocks", d.NumGPUBlocks, "KV cache capacity in blocks")
	fs.IntVar(&e.MaxNumSeqs, "max-num-seqs", d.MaxNumSeqs, "most requests in the running batch")
	fs.IntVar(&e.MaxNumBatchedTokens, "max-num-batched-tokens", d.MaxNumBatchedTokens, "token budget per step (chunked prefill)")
	fs.IntVar(&e.MaxModelLen, "max-model-len", d.MaxModelLen, "most prompt plus output tokens per request")
	fs.StringVar(&e.Batching, "batching", d.Batching, "continuous or static")
	fs.DurationVar(&e.Latency.Beta, "beta", d.Latency.Beta, "β: decode step time of a batch of one (below 0 only with --gamma 0 and --c-decode above -β: a batch of one cheaper than each sequence of a larger one)")
	fs.Float64Var(&e.Latency.Gamma, "gamma", d.Latency.Gamma, "γ: relative decode step growth with batch size")
	fs.DurationVar(&e.Latency.StepOverhead, "c-step", d.Latency.StepOverhead, "fixed time of every step")
	fs.DurationVar(&e.Latency.PrefillPerToken, "c-prefill", d.Latency.PrefillPerToken, "time per computed prompt token")
	fs.DurationVar(&e.Latency.DecodePerToken, "c-decode", d.Latency.DecodePerToken, "time per sequence that gets a token in a step")
	fs.Float64Var(&e.Latency.AttendPerKey, "c-attend-ns", d.Latency.AttendPerKey, "nanoseconds per key a computed token attends to (attention cost)")
	fs.Float64Var(&e.Latency.Jitter, "jitter", d.Latency.Jitter, "coefficient of variation of the step time")
	fs.DurationVar(&e.RequestOverhead, "request-overhead", d.RequestOverhead, "time each request spends outside the engine (HTTP, tokenisation)")
	fs.Float64Var(&e.EOSProbability, "eos-probability", d.EOSProbability, "chance a token ends the output (requests without ignore_eos)")
	fs.IntVar(&e.LoRA.MaxLoras, "max-loras", d.LoRA.MaxLoras, "most distinct LoRA adapters in the running batch (0: no limit)")
	fs.IntVar(&e.LoRA.MaxCPULoras, "max-cpu-loras", d.LoRA.MaxCPULoras, "LoRA adapters kept in host memory (0: --max-loras)")
	fs.DurationVar(&e.LoRA.LoadCost, "lora-load-cost", d.LoRA.LoadCost, "step time added to load an adapter into a GPU slot")
	fs.DurationVar(&e.LoRA.DiskLoadCost, "lora-disk-load-cost", d.LoRA.DiskLoadCost, "extra time when the adapter is not in host memory")
	fs.StringVar(&e.Eviction, "eviction", d.Eviction, "prefix cache eviction: "+strings.Join(engine.EvictionPolicies(), ", "))
	fs.Float64Var(&e.Reasoning.Share, "reasoning-share", d.Reasoning.Share,
		"share of requests that reason before they answer, as a reasoning model does (reasoning tokens are output tokens)")
	fs.Float64Var(&e.Reasoning.MeanTokens, "reasoning-mean-tokens", d.Reasoning.MeanTokens, "mean reasoning length in tokens (log-normal)")
	fs.Float64Var(&e.Reasoning.CV, "reasoning-cv", d.Reasoning.CV, "coefficient of variation of the reasoning length (0: every reasoning as long)")
	fs.IntVar(&e.Reasoning.MaxTokens, "reasoning-max-tokens", d.Reasoning.MaxTokens, "longest reasoning in tokens (0: no cap but max_tokens)")
	fs.Int64Var(&e.Seed, "seed", d.Seed, "seed of replica 0 (replica i uses seed+i) for jitter, tokens and faults")
}

// bindFaults binds the fault injection flags.
func (o *mockOptions) bindFaults(fs *pflag.FlagSet) {
	f := &o.fleet.Server.Faults
	fs.Float64Var(&f.ErrorRate, "error-rate", 0, "share of requests answered with --error-status")
	fs.IntVar(&f.ErrorStatus, "error-status", 503, "status of injected errors: 429, 500 or 503")
	fs.DurationVar(&f.RetryAfter, "retry-after", 0, "Retry-After sent with injected errors (0: none)")
	fs.Float64Var(&f.StallRate, "stall-rate", 0, "share of steps followed by a stall")
	fs.DurationVar(&f.Stall, "stall", 500*time.Millisecond, "stall length")
	fs.Float64Var(&f.DisconnectRate, "disconnect-rate", 0, "share of streams cut mid-way")
	fs.IntVar(&f.DisconnectAfter, "disconnect-after", 1, "tokens sent before a cut")
	fs.Float64Var(&f.SlowFirstByteRate, "slow-first-byte-rate", 0, "share of requests held before serving")
	fs.DurationVar(&f.SlowFirstByte, "slow-first-byte", 2*time.Second, "hold time of slow first bytes")
	fs.Float64Var(&f.RefuseRate, "refuse-rate", 0, "share of connections reset on accept")
}

// profileName returns the profile the flags select: --profile, else
// --preset.
func (o *mockOptions) profileName() (string, error) {
	if o.Profile != "" {
		if o.changed != nil && o.changed("preset") {
			return "", usagef("--preset and --profile are exclusive")
		}
		return o.Profile, nil
	}
	return o.Preset, nil
}

// engineConfig resolves the profile and applies the changed engine flags.
func (o *mockOptions) engineConfig() (engine.Config, error) {
	name, err := o.profileName()
	if err != nil {
		return engine.Config{}, err
	}
	return o.engineFrom(name, "--profile", nil, o.Engine.Seed, "mock flags")
}

// engineFrom is the engine of `tracebench mock` and of the in-process
// fleet: the profile name resolved (profileFlag names it in errors), the
// engine flags o was given applied, then extra (when not nil), then the
// seed; what names the override flags in a validation error.
func (o *mockOptions) engineFrom(name, profileFlag string, extra func(*engine.Config), seed int64,
	what string) (engine.Config, error) {
	p, err := resolveProfile(name)
	if err != nil {
		return engine.Config{}, usagef("%s: %v", profileFlag, err)
	}
	cfg, err := o.applyEngine(p.Config())
	if err != nil {
		return cfg, fmt.Errorf("%s: %w", what, err)
	}
	if extra != nil {
		extra(&cfg)
	}
	cfg.Seed = seed
	if err := cfg.Validate(); err != nil {
		return cfg, usagef("%s: %v", what, err)
	}
	return cfg, nil
}

// applyEngine returns cfg with the engine flags that were given
// applied. bindEngine maps each flag to its field, so each given flag's
// value is carried from o.Engine to cfg as its text.
func (o *mockOptions) applyEngine(cfg engine.Config) (engine.Config, error) {
	from, onto := &mockOptions{}, &mockOptions{}
	given, apply := pflag.NewFlagSet("given", pflag.ContinueOnError), pflag.NewFlagSet("apply", pflag.ContinueOnError)
	from.bindEngine(given)
	onto.bindEngine(apply)
	from.Engine, onto.Engine = o.Engine, cfg
	var err error
	given.VisitAll(func(f *pflag.Flag) {
		if err == nil && o.changed != nil && o.changed(f.Name) {
			if serr := apply.Set(f.Name, f.Value.String()); serr != nil {
				err = fmt.Errorf("--%s: %w", f.Name, serr)
			}
		}
	})
	if err != nil {
		return cfg, err
	}
	cfg = onto.Engine
	if len(o.fleet.Server.LoRAModules) > 0 && cfg.LoRA.MaxLoras == 0 {
		cfg.LoRA.MaxLoras = 1 // vLLM's default with LoRA enabled
	}
	return cfg, nil
}

// mockFlagNames are the flags of this command that set the MockFleet
// fields the library's errors name.
var mockFlagNames = map[string]string{
	"MockFleet.Replicas":         "--replicas",
	"MockFleet.Port":             "--port",
	"MockFleet.Server.MaxQueue":  "--max-queue",
	"MockFleet.Server.Faults":    "fault flags",
	"MockFleet.Server.Dialect":   "--dialect",
	"MockFleet.Server.Engine":    "mock flags",
	"MockFleet.Server.TimeScale": "--time-scale",
	"MockFleet.Server.Role":      "--role",
}

// mockFleet resolves the engine profile and flags into the fleet the
// flags describe, checked by the library (bench.MockFleet.Validate)
// before any server starts, its errors naming this command's flags.
func (o *mockOptions) mockFleet() (bench.MockFleet, error) {
	f := o.fleet
	if err := f.Validate(); err != nil && !isField(err, "MockFleet.Server.Engine") {
		return f, flagErr(err, mockFlagNames)
	}
	if !(f.Server.TimeScale > 0) {
		// The library reads 0 as real time; the flag's 0 is refused.
		return f, usagef("--time-scale %g: want > 0", f.Server.TimeScale)
	}
	cfg, err := o.engineConfig()
	if err != nil {
		return f, err
	}
	f.Server.Engine = cfg
	if d, err := dialect.Lookup(f.Server.Dialect); err == nil {
		f.Server.Dialect = d.Name
	}
	if err := o.llamaDialect(&f); err != nil {
		return f, err
	}
	return f, flagErr(f.Validate(), mockFlagNames)
}

// llamaDialect makes a llama.cpp-family profile answer as llama.cpp: the
// dialect defaults to llamacpp, and an explicit vLLM or SGLang dialect is
// refused (openai, the bare API, is kept), naming the profile (its per-slot cache and slot terms describe
// no paged-prefix server).
func (o *mockOptions) llamaDialect(f *bench.MockFleet) error {
	name, err := o.profileName()
	if err != nil {
		return err
	}
	p, err := resolveProfile(name)
	if err != nil || !p.LlamaCppFamily() {
		return nil
	}
	switch {
	case o.changed == nil || !o.changed("dialect"):
		f.Server.Dialect = dialect.LlamaCpp
	case f.Server.Dialect == dialect.VLLM || f.Server.Dialect == dialect.SGLang:
		return usagef("--dialect %s: profile %s is a llama.cpp-family engine (cache %s%s), which no %s server is; "+
			"serve it with --dialect llamacpp", f.Server.Dialect, name, p.Engine.Cache, llamaSection(p), f.Server.Dialect)
	}
	return nil
}

// llamaSection says whether p has a llamacpp section (", llamacpp
// section") or not ("").
func llamaSection(p *profile.Profile) string {
	if p.LlamaCpp != nil {
		return ", llamacpp section"
	}
	return ""
}

// fleetConfig validates the flags and builds the fleet configuration.
func (o *mockOptions) fleetConfig() (mockserver.FleetConfig, error) {
	return fleetConfigOf(o.mockFleet())
}

// runMock starts the fleet, prints its URLs and serves until ctx ends.
func runMock(ctx context.Context, o *mockOptions, out io.Writer) error {
	fc, err := o.fleetConfig()
	if err == nil {
		err = o.kv.apply(&fc)
	}
	if err != nil {
		return err
	}
	f, err := mockserver.StartFleet(ctx, fc)
	if err != nil {
		return fmt.Errorf("mock: %w", err)
	}
	name, _ := o.profileName()
	fmt.Fprintf(out, "mock: %d replica(s), profile %s, model %s; Ctrl-C to stop\n", fc.Replicas, name, fc.Options.ModelName)
	for _, u := range f.URLs() {
		fmt.Fprintln(out, u)
	}
	printMockKV(out, f, fc)
	<-ctx.Done()
	l := f.Lateness()
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(out, "mock: stopped; step lateness over %d steps: p50 %v, p99 %v, max %v\n", l.Steps, l.P50, l.P99, l.Max)
	return nil
}
