package cli

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
)

// fleetFlags configure the in-process mock fleet of bench and replay.
type fleetFlags struct {
	Sim       int
	Replicas  int
	Preset    string
	Blocks    int
	MaxLen    int
	TimeScale float64
	Tokenizer string
	Seed      int64
}

func (m *fleetFlags) bind(fs *pflag.FlagSet) {
	fs.IntVar(&m.Sim, "sim", 0, "simulate N mock engines in virtual time (no HTTP, no sleeping) instead of a real-time fleet")
	fs.IntVar(&m.Replicas, "mock", 4, "number of in-process mock replicas (when no --target)")
	fs.StringVar(&m.Preset, "mock-preset", "", "mock engine preset (see 'tracebench mock --help')")
	fs.IntVar(&m.Blocks, "mock-blocks", 0, "KV cache blocks per mock replica (0 = preset default)")
	fs.IntVar(&m.MaxLen, "mock-max-model-len", 0, "longest prompt + output a mock replica accepts, tokens (0 = preset default)")
	fs.Float64Var(&m.TimeScale, "mock-time-scale", 1, "mock model speed: 2 runs it twice as slow as real time, 0.5 twice as fast")
	fs.StringVar(&m.Tokenizer, "mock-tokenizer", "whitespace", "mock tokenizer: whitespace|character|tiktoken")
	fs.Int64Var(&m.Seed, "mock-seed", 1, "seed of the mock's latency jitter and faults")
}

// engineConfig resolves the preset and overrides.
func (m *fleetFlags) engineConfig() (engine.Config, error) {
	cfg := engine.DefaultConfig()
	if m.Preset != "" {
		var err error
		if cfg, err = engine.Preset(m.Preset); err != nil {
			return cfg, usagef("--mock-preset: %v", err)
		}
	}
	if m.Blocks > 0 {
		cfg.NumGPUBlocks = m.Blocks
	}
	if m.MaxLen > 0 {
		cfg.MaxModelLen = m.MaxLen
	}
	cfg.Seed = m.Seed
	return cfg, nil
}

// backends points rs at the targets, a simulation or a fresh mock fleet,
// and returns the fleet's stop function (a no-op without one).
func (m *fleetFlags) backends(ctx context.Context, rs *runSpec, targets []string) (func(), error) {
	switch {
	case len(targets) > 0 && m.Sim > 0:
		return nil, usagef("--sim and --target are exclusive")
	case len(targets) > 0:
		if err := checkTargets(targets); err != nil {
			return nil, err
		}
		rs.backends, rs.mode = targets, "target"
		return func() {}, nil
	case m.Sim > 0:
		cfg, err := m.engineConfig()
		if err != nil {
			return nil, err
		}
		rs.sim, rs.engines = m.Sim, cfg
		return func() {}, nil
	}
	fleet, err := m.start(ctx)
	if err != nil {
		return nil, err
	}
	rs.backends, rs.mode, rs.extra = fleet.URLs(), "mock", fleetExtra(fleet)
	return func() { fleet.Close() }, nil
}

// checkTargets rejects a --target that is not an http(s) base URL.
func checkTargets(targets []string) error {
	for _, t := range targets {
		u, err := url.Parse(t)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--target %q: want a base URL such as http://host:8000", t)
		}
	}
	return nil
}

// start launches the fleet on ephemeral loopback ports.
func (m *fleetFlags) start(ctx context.Context) (*mockserver.Fleet, error) {
	if m.Replicas < 1 {
		return nil, usagef("--mock %d: want at least 1 replica", m.Replicas)
	}
	cfg, err := m.engineConfig()
	if err != nil {
		return nil, err
	}
	// The fleet outlives a first Ctrl-C (which only stops dispatch) so
	// in-flight streams can finish within --grace; the caller's stop
	// function closes it.
	f, err := mockserver.StartFleet(context.WithoutCancel(ctx), mockserver.FleetConfig{Replicas: m.Replicas, Host: "127.0.0.1",
		Options: mockserver.Options{Engine: cfg, Tokenizer: m.Tokenizer, TimeScale: m.TimeScale}})
	if err != nil {
		return nil, fmt.Errorf("start mock fleet: %w", err)
	}
	return f, nil
}

// fleetExtra reports the fleet's step lateness for the stop record.
func fleetExtra(f *mockserver.Fleet) func() map[string]float64 {
	return func() map[string]float64 {
		l := f.Lateness()
		us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
		return map[string]float64{"mock_step_late_p50_us": us(l.P50), "mock_step_late_p99_us": us(l.P99),
			"mock_step_late_max_us": us(l.Max)}
	}
}
