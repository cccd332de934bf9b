package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// MockFleet is a fleet of in-process mock model servers (package
// mockserver) on loopback HTTP, running in real time: what `tracebench
// mock` serves, and what `tracebench bench`, `replay` and `sweep` start
// for each Run without --target or --sim. DefaultMockFleet gives the
// command line's in-process fleet.
type MockFleet struct {
	// Replicas is the number of servers (at least 1).
	Replicas int
	// Host is the address to bind ("": 127.0.0.1); Port the first
	// server's port, the others taking the next ones (0: each an
	// ephemeral port).
	Host string
	Port int
	// Server configures every server: its engine (server i seeded
	// Server.Engine.Seed+i), tokenizer, time scale (0: 1, real time),
	// faults, queue limit, dialect ("": vllm), model name and LoRA
	// adapters.
	Server mockserver.Options
	// KVEvents makes every server publish KV events; Start turns it on
	// for a router that reads them.
	KVEvents bool
	// Preset names the engine profile Server.Engine came from, for the
	// results header ("": none named).
	Preset string
}

// DefaultMockFleet is the in-process fleet of the command line: 4
// servers of the default engine profile (engine.DefaultConfig, seed 1)
// on ephemeral 127.0.0.1 ports, whitespace tokenizer, real time, no
// faults.
func DefaultMockFleet() MockFleet {
	cfg := engine.DefaultConfig()
	cfg.Seed = 1
	return MockFleet{Replicas: 4, Host: "127.0.0.1",
		Server: mockserver.Options{Engine: cfg, Tokenizer: "whitespace", TimeScale: 1}}
}

// Validate checks f before any server starts; a bad value is a
// UsageError naming the MockFleet field.
func (f MockFleet) Validate() error {
	s := f.Server
	switch {
	case f.Replicas < 1:
		return fieldf("MockFleet.Replicas", "MockFleet.Replicas %d: want at least 1", f.Replicas)
	case f.Port < 0 || f.Port+f.Replicas-1 > 65535:
		return fieldf("MockFleet.Port", "MockFleet.Port %d: ports %d..%d out of range", f.Port, f.Port, f.Port+f.Replicas-1)
	case s.TimeScale < 0:
		return fieldf("MockFleet.Server.TimeScale", "MockFleet.Server.TimeScale %g: want > 0", s.TimeScale)
	case s.MaxQueue < 0:
		return fieldf("MockFleet.Server.MaxQueue", "MockFleet.Server.MaxQueue %d: want ≥ 0 (0: unbounded)", s.MaxQueue)
	case s.Role != "" && s.Role != mockserver.RoleBoth && s.Role != mockserver.RolePrefill && s.Role != mockserver.RoleDecode:
		return fieldf("MockFleet.Server.Role", "MockFleet.Server.Role %q: want prefill, decode or both", s.Role)
	}
	if err := s.Faults.Validate(); err != nil {
		return fieldf("MockFleet.Server.Faults", "MockFleet.Server.Faults: %v", err)
	}
	if s.Dialect != "" {
		if _, err := dialect.Lookup(s.Dialect); err != nil {
			return fieldf("MockFleet.Server.Dialect", "MockFleet.Server.Dialect: %v", err)
		}
	}
	if err := s.Engine.Validate(); err != nil {
		return fieldf("MockFleet.Server.Engine", "MockFleet.Server.Engine: %v", err)
	}
	return nil
}

// Config is the fleet's mockserver configuration ("" Host as
// 127.0.0.1).
func (f MockFleet) Config() mockserver.FleetConfig {
	host := f.Host
	if host == "" {
		host = "127.0.0.1"
	}
	return mockserver.FleetConfig{Replicas: f.Replicas, Host: host, BasePort: f.Port, Options: f.Server,
		KVEvents: f.KVEvents}
}

// StartMockFleet validates f and starts its servers. The fleet outlives
// ctx's end (a first Ctrl-C only stops dispatch, and in-flight streams
// may finish within Client.Grace): the caller closes it.
func StartMockFleet(ctx context.Context, f MockFleet) (*mockserver.Fleet, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	fl, err := mockserver.StartFleet(context.WithoutCancel(ctx), f.Config())
	if err != nil {
		return nil, fmt.Errorf("start mock fleet: %w", err)
	}
	return fl, nil
}

// Start starts a fresh fleet f for the Run of s, with cold caches, and
// points s at it: Backends, Mode results.ModeMock, Fleet and Preset, Extra (the
// servers' step lateness, which the report judges the timings by) and,
// for a router that reads KV events, KVEvents. stop closes the fleet,
// once the Run is over.
func (f MockFleet) Start(ctx context.Context, s *Spec) (stop func(), err error) {
	f.KVEvents = f.KVEvents || ReadsKVEvents(s.Policy.Router)
	fl, err := StartMockFleet(ctx, f)
	if err != nil {
		return nil, err
	}
	cfg := f.Server.Engine
	s.Fleet, s.Preset = &cfg, f.Preset
	s.Backends, s.Mode, s.Extra, s.KVEvents = fl.URLs(), results.ModeMock, fleetExtra(fl), fleetKV(fl)
	return func() { fl.Close() }, nil
}

// Setup is a SweepSpec.Setup (or CompareSpec.Setup) giving each Run a
// fresh fleet f, its engines' seed shifted by as much as the Run's
// workload seed is above base (the seed the fleet's own belongs to), so
// a sweep's or comparison's seed K also draws the mock's jitter anew.
func (f MockFleet) Setup(base uint64) func(ctx context.Context, s *Spec) (func(), error) {
	return func(ctx context.Context, s *Spec) (func(), error) {
		g := f
		g.Server.Engine.Seed += int64(s.Workload.Seed - base)
		return g.Start(ctx, s)
	}
}

// ReadsKVEvents reports whether the named router decides from the
// servers' KV events (it then needs their event endpoints).
func ReadsKVEvents(router string) bool {
	s, err := policies.Lookup(policies.KindRouter, router)
	return err == nil && slices.Contains(s.Needs, "kv-events")
}

// fleetKV returns the fleet's KV event endpoints (nil when it publishes
// none).
func fleetKV(f *mockserver.Fleet) []replay.KVEndpoint {
	pubs, reps := f.KVEventEndpoints()
	var out []replay.KVEndpoint
	for i := range pubs {
		if pubs[i] != "" {
			out = append(out, replay.KVEndpoint{Pub: pubs[i], Replay: reps[i]})
		}
	}
	return out
}

// fleetExtra reports the fleet's step lateness and step count for the
// stop record.
func fleetExtra(f *mockserver.Fleet) func() map[string]float64 {
	return func() map[string]float64 {
		l := f.Lateness()
		us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
		return map[string]float64{results.ExtraMockLateP50: us(l.P50), results.ExtraMockLateP99: us(l.P99),
			results.ExtraMockLateMax: us(l.Max), results.ExtraMockSteps: float64(l.Steps)}
	}
}
