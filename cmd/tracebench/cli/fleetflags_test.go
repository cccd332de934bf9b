package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/results"
)

// fleetFlagsOf parses args into fresh fleet flags.
func fleetFlagsOf(t *testing.T, args []string) (*fleetFlags, error) {
	t.Helper()
	m := &fleetFlags{}
	fs := pflag.NewFlagSet("fleet", pflag.ContinueOnError)
	m.bind(fs)
	return m, fs.Parse(args)
}

// TestFleetFlagsMirrorMockFaults: every fault flag of `tracebench mock`,
// and --max-queue, is a --mock-set key.
func TestFleetFlagsMirrorMockFaults(t *testing.T) {
	faults := pflag.NewFlagSet("faults", pflag.ContinueOnError)
	(&mockOptions{}).bindFaults(faults)
	m, err := fleetFlagsOf(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"max-queue"}
	faults.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if len(names) < 10 {
		t.Fatalf("only %d mock fault flags found: %v", len(names), names)
	}
	keys := m.set.Keys()
	for _, n := range names {
		if !slices.Contains(keys, flags.KeyName(n)) {
			t.Errorf("--mock-set %s missing", flags.KeyName(n))
		}
	}
}

// TestFleetFaultFlags: the flags reach the fleet's options; invalid
// values are usage errors.
func TestFleetFaultFlags(t *testing.T) {
	defaults := mockserver.FaultConfig{ErrorStatus: 503, Stall: 500 * time.Millisecond, DisconnectAfter: 1,
		SlowFirstByte: 2 * time.Second}
	with := func(f func(*mockserver.FaultConfig)) mockserver.FaultConfig {
		c := defaults
		f(&c)
		return c
	}
	tests := []struct {
		name      string
		args      []string
		faults    mockserver.FaultConfig
		maxQueue  int
		usageFail bool
	}{
		{"defaults", nil, defaults, 0, false},
		{"errors", []string{"--mock-set", "error_rate=0.5", "--mock-set", "error_status=429", "--mock-set", "retry_after=1s"},
			with(func(c *mockserver.FaultConfig) { c.ErrorRate, c.ErrorStatus, c.RetryAfter = 0.5, 429, time.Second }), 0, false},
		{"stall", []string{"--mock-set", "stall_rate=0.01", "--mock-set", "stall=250ms"},
			with(func(c *mockserver.FaultConfig) { c.StallRate, c.Stall = 0.01, 250*time.Millisecond }), 0, false},
		{"disconnect", []string{"--mock-set", "disconnect_rate=0.2", "--mock-set", "disconnect_after=7"},
			with(func(c *mockserver.FaultConfig) { c.DisconnectRate, c.DisconnectAfter = 0.2, 7 }), 0, false},
		{"slow first byte", []string{"--mock-set", "slow_first_byte_rate=0.3", "--mock-set", "slow_first_byte=1500ms"},
			with(func(c *mockserver.FaultConfig) { c.SlowFirstByteRate, c.SlowFirstByte = 0.3, 1500*time.Millisecond }), 0, false},
		{"refuse and queue", []string{"--mock-set", "refuse_rate=0.05", "--mock-set", "max_queue=12"},
			with(func(c *mockserver.FaultConfig) { c.RefuseRate = 0.05 }), 12, false},
		{"rate above 1", []string{"--mock-set", "error_rate=2"}, defaults, 0, true},
		{"bad status", []string{"--mock-set", "error_status=404"}, defaults, 0, true},
		{"negative stall", []string{"--mock-set", "stall=-1s"}, defaults, 0, true},
		{"negative queue", []string{"--mock-set", "max_queue=-1"}, defaults, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := fleetFlagsOf(t, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			fc, err := m.fleetConfig()
			var ue usageError
			if tc.usageFail {
				if !errors.As(err, &ue) {
					t.Fatalf("err %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fc.Options.Faults != tc.faults || fc.Options.MaxQueue != tc.maxQueue {
				t.Fatalf("faults %+v max queue %d, want %+v %d", fc.Options.Faults, fc.Options.MaxQueue, tc.faults,
					tc.maxQueue)
			}
		})
	}
}

// TestFleetEvictionFlag: --mock-set eviction= sets the engines' policy, the
// presets' lru otherwise; a bad name or a --target run is a usage error.
func TestFleetEvictionFlag(t *testing.T) {
	tests := []struct {
		args    []string
		want    string
		targets []string
		usage   bool
	}{
		{[]string{"--sim", "2"}, engine.EvictLRU, nil, false},
		{[]string{"--sim", "2", "--mock-profile", "small-kv", "--mock-set", "eviction=lfu"}, engine.EvictLFU, nil, false},
		{[]string{"--sim", "2", "--mock-set", "eviction=lru-longest"}, engine.EvictLRULongest, nil, false},
		{[]string{"--sim", "2", "--mock-set", "eviction=fifo"}, "", nil, true},
		{[]string{"--mock-set", "eviction=lfu"}, "", []string{"http://127.0.0.1:1"}, true},
	}
	if m, err := fleetFlagsOf(t, []string{"--sim", "2", "--mock-lora-modules", "a"}); err != nil {
		t.Fatal(err)
	} else if _, err := m.backends(context.Background(), &runSpec{}, nil); err == nil || !strings.Contains(err.Error(), "--mock-lora-modules") {
		t.Errorf("--mock-lora-modules with --sim: %v, want a usage error naming it", err)
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			m, err := fleetFlagsOf(t, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			rs := &runSpec{}
			_, err = m.backends(context.Background(), rs, tc.targets)
			var ue usageError
			if tc.usage {
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--mock-set") {
					t.Fatalf("err %v, want a usage error naming --mock-set", err)
				}
				return
			}
			if err != nil || rs.Fleet == nil || rs.Fleet.Eviction != tc.want {
				t.Fatalf("fleet %+v (err %v), want eviction %q", rs.Fleet, err, tc.want)
			}
		})
	}
}

// TestFleetFaultFlagsNeedTheFleet: fault flags with --target or --sim
// are usage errors, not silently ignored; unparsable values fail to parse.
func TestFleetFaultFlagsNeedTheFleet(t *testing.T) {
	for _, args := range [][]string{
		{"--mock-set", "error_rate=0.1", "--sim", "2"},
		{"--mock-set", "max_queue=4", "--sim", "2"},
	} {
		m, err := fleetFlagsOf(t, args)
		if err != nil {
			t.Fatal(err)
		}
		var ue usageError
		if _, err := m.backends(context.Background(), &runSpec{}, nil); !errors.As(err, &ue) {
			t.Errorf("%v: err %v, want a usage error", args, err)
		}
		if _, err := m.backends(context.Background(), &runSpec{}, []string{"http://127.0.0.1:1"}); !errors.As(err, &ue) {
			t.Errorf("%v with --target: err %v, want a usage error", args[:2], err)
		}
	}
	if _, err := fleetFlagsOf(t, []string{"--mock-set", "stall=soon"}); err == nil {
		t.Error("--mock-set stall=soon parsed")
	}
}

// TestReplayMockErrorRate: replay --mock 1 with every request answered
// 503, then half of them: the failures are http-5xx, the stop line has
// the fleet's step count.
func TestReplayMockErrorRate(t *testing.T) {
	for _, tc := range []struct {
		rate     string
		min, max int64 // http-5xx out of 12
	}{{"1", 12, 12}, {"0.5", 1, 11}} {
		t.Run(tc.rate, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.jsonl")
			var stdout, stderr bytes.Buffer
			code := Run([]string{"replay", "--mock", "1", "--mock-profile", "fast", "--max-requests", "12", "--rate", "60",
				"--mock-set", "error_rate=" + tc.rate, "--mock-set", "error_status=503", "--out", out}, &stdout, &stderr)
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			sum, err := metrics.Summarize(out, metrics.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			n := sum.Errors[results.ErrHTTP5xx]
			if sum.Requests != 12 || n < tc.min || n > tc.max || sum.OK+n != 12 {
				t.Fatalf("requests %d ok %d errors %v: want %d..%d http-5xx, the rest ok", sum.Requests, sum.OK,
					sum.Errors, tc.min, tc.max)
			}
			if steps := sum.MockStepLate.Steps; (sum.OK > 0) != (steps > 0) {
				t.Fatalf("mock steps %v with %d successful requests", steps, sum.OK)
			}
		})
	}
}
