package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// TestMockSet: --mock-set overrides one profile field or fault setting
// per KEY=VALUE, in either spelling; a bad key or value is a one-line
// error naming the flag and the key.
func TestMockSet(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(engine.Config) bool
		wantErr []string
	}{
		{"profile field", []string{"--mock-set", "max_num_seqs=64"},
			func(c engine.Config) bool { return c.MaxNumSeqs == 64 }, nil},
		{"hyphen spelling", []string{"--mock-set", "max-num-seqs=32"},
			func(c engine.Config) bool { return c.MaxNumSeqs == 32 }, nil},
		{"over the profile", []string{"--mock-profile", "small-kv", "--mock-set", "beta=8ms"},
			func(c engine.Config) bool { return c.NumGPUBlocks == 512 && c.Latency.Beta == 8*time.Millisecond }, nil},
		{"repeated", []string{"--mock-set", "gamma=0", "--mock-set", "jitter=0", "--mock-set", "eviction=lfu"},
			func(c engine.Config) bool {
				return c.Latency.Gamma == 0 && c.Latency.Jitter == 0 && c.Eviction == "lfu"
			}, nil},
		{"keys the fleet once had own flags for", []string{"--mock-set", "max_model_len=4096", "--mock-set", "max_loras=2"},
			func(c engine.Config) bool { return c.MaxModelLen == 4096 && c.LoRA.MaxLoras == 2 }, nil},
		{"misspelt key", []string{"--mock-set", "max_num_seq=8"}, nil,
			[]string{"--mock-set", `unknown key "max_num_seq"`, "did you mean max_num_seqs"}},
		{"far key lists every key", []string{"--mock-set", "zzz=1"}, nil,
			[]string{"--mock-set", `unknown key "zzz"`, "keys: batching, beta,"}},
		{"no equals", []string{"--mock-set", "beta"}, nil, []string{"--mock-set", "want KEY=VALUE"}},
		{"bad value", []string{"--mock-set", "beta=5"}, nil, []string{"--mock-set", "beta:", "missing unit"}},
		{"seed has its own flag", []string{"--mock-set", "seed=3"}, nil, []string{`unknown key "seed"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := fleetFlagsOf(t, tt.args)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("parsed, want an error with %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
						t.Errorf("error %q: want one line containing %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := m.engineConfig()
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(cfg) {
				t.Errorf("engine config %+v does not reflect %v", cfg, tt.args)
			}
		})
	}
}

// TestMockSetFaultNeedsTheFleet: a fault key applies to the in-process
// fleet only, and an engine key not to live targets.
func TestMockSetFaultNeedsTheFleet(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--sim", "2", "--mock-set", "error_rate=0.5"}, "fault keys"},
		{[]string{"--target", "http://127.0.0.1:9", "--mock-set", "beta=8ms"}, "--mock-set apply to --mock and --sim"},
	}
	for _, tt := range tests {
		var errOut bytes.Buffer
		args := append([]string{"replay", "--max-requests", "1", "--out", filepath.Join(t.TempDir(), "r.jsonl")}, tt.args...)
		if code := Run(args, &bytes.Buffer{}, &errOut); code != ExitUsage || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%v: exit %d, %q; want %d naming %q", tt.args, code, errOut.String(), ExitUsage, tt.want)
		}
	}
}

// TestRemovedFleetFlags: the flags --mock-profile and --mock-set
// replaced are gone; each is a usage error that names it (CHANGELOG.md
// gives the migration).
func TestRemovedFleetFlags(t *testing.T) {
	for _, flag := range []string{"--mock-preset", "--sim-profile", "--mock-beta", "--mock-eviction",
		"--mock-max-model-len", "--mock-error-rate", "--mock-max-queue"} {
		var errOut bytes.Buffer
		args := []string{"replay", "--sim", "1", "--max-requests", "3", "--out",
			filepath.Join(t.TempDir(), "r.jsonl"), flag, "1"}
		if code := Run(args, &bytes.Buffer{}, &errOut); code != ExitUsage || !strings.Contains(errOut.String(), flag) {
			t.Errorf("%s: exit %d, %q; want %d naming the flag", flag, code, errOut.String(), ExitUsage)
		}
	}
}
