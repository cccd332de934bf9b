package cli

import (
	"context"
	"slices"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// fleetFlags configure the in-process mock fleet of bench, replay and
// sweep.
type fleetFlags struct {
	Sim       int
	Replicas  int
	Profile   string
	Blocks    int
	LoRA      []string
	TimeScale float64
	Tokenizer string
	// TargetsFile lists more --target URLs, one per line.
	TargetsFile string
	// ResolveEvery re-resolves dns+http:// targets during a run (0: once,
	// at the start).
	ResolveEvery time.Duration
	// price is the targets file's cost_per_hour= prices (none without).
	price metrics.Price
	// dnsTargets are the targets before resolution when some is a
	// dns+http:// name (nil otherwise).
	dnsTargets []string
	// dialect is the in-process fleet's server dialect ("" vLLM), from
	// --dialect when it names one.
	dialect string
	Seed    int64
	// shared holds the values of the `tracebench mock` flags the fleet
	// takes too (faults and max-queue); sharedDefaults their defaults.
	shared         mockOptions
	sharedDefaults mockOptions
	kv             kvFlags
	// set is --mock-set: engine profile fields and fault settings.
	set *flags.MockSet
}

// sharedMockFlags are the flags of `tracebench mock`, besides its fault
// flags and engine flags, that the in-process fleet takes as --mock-set
// keys.
var sharedMockFlags = []string{"max-queue"}

// engineKeys are the --mock-set keys that override a profile field: every
// engine flag of `tracebench mock` but the seed (--mock-seed).
func engineKeys() []string {
	fs := pflag.NewFlagSet("engine", pflag.ContinueOnError)
	(&mockOptions{}).bindEngine(fs)
	var keys []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name != "seed" {
			keys = append(keys, f.Name)
		}
	})
	return keys
}

func (m *fleetFlags) bind(fs *pflag.FlagSet) {
	fs.IntVar(&m.Sim, "sim", 0, "simulate N engines in virtual time (no HTTP) instead of a real-time fleet")
	fs.IntVar(&m.Replicas, "mock", 4, "number of in-process mock replicas (when no --target)")
	fs.StringVar(&m.Profile, "mock-profile", "", "engine profile of mock or simulated engines: a built-in `name` ('tracebench profiles') or a YAML file")
	fs.IntVar(&m.Blocks, "mock-blocks", 0, "KV cache blocks per mock replica (0 = preset default)")
	fs.StringSliceVar(&m.LoRA, "mock-lora-modules", nil, "LoRA adapters the mock replicas serve (others get vLLM's 404; --mock only)")
	fs.Float64Var(&m.TimeScale, "mock-time-scale", 1, "mock model speed: 2 runs it twice as slow as real time, 0.5 twice as fast")
	fs.StringVar(&m.Tokenizer, "mock-tokenizer", "whitespace", "mock tokenizer: whitespace|character|tiktoken")
	fs.Int64Var(&m.Seed, "mock-seed", 1, "seed of the mock's latency jitter and faults")
	fs.StringVar(&m.TargetsFile, "targets-file", "", "file of live backend base URLs, one per line (# comments), added to --target")
	fs.DurationVar(&m.ResolveEvery, "resolve-every", replay.DefaultResolveEvery,
		"re-resolve dns+http:// targets this often during the run; backends join and leave (0: resolve once)")
	m.kv.bind(fs)
	m.bindShared(fs)
}

// bindShared binds --mock-set over the engine flags, the fault flags and
// --max-queue of `tracebench mock` (the same definitions, defaults and
// parsing).
func (m *fleetFlags) bindShared(fs *pflag.FlagSet) {
	all := pflag.NewFlagSet("mock", pflag.ContinueOnError)
	m.shared.bind(all)
	m.sharedDefaults = m.shared
	faults := pflag.NewFlagSet("faults", pflag.ContinueOnError)
	(&mockOptions{}).bindFaults(faults)
	keys := append(append([]string(nil), sharedMockFlags...), engineKeys()...)
	faults.VisitAll(func(f *pflag.Flag) { keys = append(keys, f.Name) })
	values := map[string]pflag.Value{}
	for _, n := range keys {
		values[n] = all.Lookup(n).Value
	}
	m.set = flags.NewMockSet(values)
	fs.Var(m.set, "mock-set", "override a profile field or a mock fault setting (repeatable; e.g. beta=8ms; "+
		"keys: docs/cli.md)")
	m.shared.changed = m.set.Changed
}

// sharedChanged reports whether a --mock-set fault key or max_queue has a
// value other than its default.
func (m *fleetFlags) sharedChanged() bool {
	got, def := m.shared.fleet.Server, m.sharedDefaults.fleet.Server
	return got.Faults != def.Faults || got.MaxQueue != def.MaxQueue
}

// engineChanged reports whether a profile or an engine override was given.
func (m *fleetFlags) engineChanged() bool {
	return m.Profile != "" || slices.ContainsFunc(engineKeys(), m.shared.changed)
}

// profileName returns the profile --mock-profile selects (default:
// "default").
func (m *fleetFlags) profileName() string {
	if m.Profile != "" {
		return m.Profile
	}
	return profile.DefaultName
}

// presetName is the built-in profile --mock-profile names, for the
// results header ("" when none is named or it is a file).
func (m *fleetFlags) presetName() string {
	if m.Profile == "" {
		return ""
	}
	if _, err := profile.Builtin(m.Profile); err != nil {
		return ""
	}
	return m.Profile
}

// engineConfig resolves the profile and applies --mock-blocks and the
// --mock-set engine keys.
func (m *fleetFlags) engineConfig() (engine.Config, error) {
	name := m.profileName()
	return m.shared.engineFrom(name, "--mock-profile "+name, func(cfg *engine.Config) {
		if m.Blocks > 0 {
			cfg.NumGPUBlocks = m.Blocks
		}
		if len(m.LoRA) > 0 && cfg.LoRA.MaxLoras == 0 {
			cfg.LoRA.MaxLoras = 1 // vLLM's default with LoRA enabled
		}
	}, m.Seed, "--mock-set")
}

// backends points rs at the targets, a simulation or a fresh mock fleet,
// and returns the fleet's stop function (a no-op without one).
func (m *fleetFlags) backends(ctx context.Context, rs *runSpec, targets []string) (func(), error) {
	targets, err := m.allTargets(ctx, targets)
	if err != nil {
		return nil, err
	}
	m.priceRun(rs, len(targets) > 0)
	if rs.Client.Dialect != "" && !dialect.Valid(rs.Client.Dialect) {
		_, err := dialect.Lookup(rs.Client.Dialect)
		return nil, usagef("--dialect: %v", err)
	}
	switch {
	case len(targets) > 0 && m.Sim > 0:
		return nil, usagef("--sim and --target are exclusive")
	case (len(targets) > 0 || m.Sim > 0) && m.sharedChanged():
		return nil, usagef("--mock-set's fault keys and max_queue apply to the in-process mock fleet only, " +
			"not to --target or --sim")
	case len(targets) > 0 && m.engineChanged():
		return nil, usagef("--mock-profile and --mock-set apply to --mock and --sim, not to --target")
	case m.Sim > 0 && len(m.LoRA) > 0:
		return nil, usagef("--mock-lora-modules applies to --mock (a simulated engine answers no HTTP, so it has no 404 to give)")
	case len(targets) > 0 && len(m.LoRA) > 0:
		return nil, usagef("--mock-lora-modules applies to the mock fleet, not to --target")
	case len(targets) > 0:
		if err := checkTargets(targets); err != nil {
			return nil, err
		}
		rs.Backends, rs.Mode, rs.Discover = targets, results.ModeTarget, m.discovery()
		return func() {}, m.targetKV(rs, targets)
	case m.Sim > 0:
		cfg, err := m.engineConfig()
		if err != nil {
			return nil, err
		}
		rs.Sim, rs.Fleet, rs.Preset, rs.KVDelay = m.Sim, &cfg, m.presetName(), m.kv.Delay
		return func() {}, m.checkKVFlags(false, true)
	}
	if d := rs.Client.Dialect; d != "" && d != dialect.Auto {
		// The in-process fleet answers in the dialect asked for.
		m.dialect = d
	}
	if err := m.checkKVFlags(false, false); err != nil {
		return nil, err
	}
	f, err := m.mockFleet()
	if err != nil {
		return nil, err
	}
	return f.Start(ctx, rs)
}

// targetKV resolves the targets' KV event endpoints for a KV-event router.
func (m *fleetFlags) targetKV(rs *runSpec, targets []string) error {
	if err := m.checkKVFlags(true, false); err != nil {
		return err
	}
	if !readsKVEvents(rs.Policy.Router) {
		return nil
	}
	return m.kv.resolve(rs, targets)
}

// checkKVFlags rejects --kv-events without --target and --kv-event-delay
// without --sim.
func (m *fleetFlags) checkKVFlags(target, sim bool) error {
	if (len(m.kv.Endpoints) > 0 || m.kv.listening()) && !target {
		return usagef("--kv-events and --kv-events-listen apply to --target only (the mock fleet and --sim wire their events themselves)")
	}
	if m.kv.Delay != 0 && !sim {
		return usagef("--kv-event-delay applies to --sim only (live events arrive with their real lag)")
	}
	if m.kv.Delay < 0 {
		return usagef("--kv-event-delay %v: want ≥ 0", m.kv.Delay)
	}
	return nil
}

// checkTargets rejects a --target that is not an http(s) base URL.
func checkTargets(targets []string) error { return flagErr(bench.CheckTargets(targets), flagNames) }

// fleetFlagNames are the flags that set the MockFleet fields the
// library's errors name, for the in-process fleet.
var fleetFlagNames = map[string]string{
	"MockFleet.Server.MaxQueue":  "--mock-set max_queue",
	"MockFleet.Server.Faults":    "--mock-set (fault keys)",
	"MockFleet.Server.Engine":    "--mock-set (engine keys)",
	"MockFleet.Server.TimeScale": "--mock-time-scale",
}

// mockFleet validates the flags and builds the in-process fleet:
// ephemeral loopback ports, the engine configuration the profile and
// the --mock- flags resolve to.
func (m *fleetFlags) mockFleet() (bench.MockFleet, error) {
	if m.Replicas < 1 {
		return bench.MockFleet{}, usagef("--mock %d: want at least 1 replica", m.Replicas)
	}
	cfg, err := m.engineConfig()
	if err != nil {
		return bench.MockFleet{}, err
	}
	sh := m.shared.fleet.Server
	f := bench.MockFleet{Replicas: m.Replicas, Host: "127.0.0.1", Preset: m.presetName(), Server: mockserver.Options{
		Engine: cfg, Tokenizer: m.Tokenizer, TimeScale: m.TimeScale, Faults: sh.Faults, MaxQueue: sh.MaxQueue,
		Dialect: m.dialect, LoRAModules: m.LoRA}}
	return f, flagErr(f.Validate(), fleetFlagNames)
}

// fleetConfig validates the flags and builds the fleet's configuration
// (ephemeral loopback ports).
func (m *fleetFlags) fleetConfig() (mockserver.FleetConfig, error) {
	return fleetConfigOf(m.mockFleet())
}

// fleetConfigOf is the configuration of the fleet f, or err when the
// flags could not build it.
func fleetConfigOf(f bench.MockFleet, err error) (mockserver.FleetConfig, error) {
	if err != nil {
		return mockserver.FleetConfig{}, err
	}
	return f.Config(), nil
}
