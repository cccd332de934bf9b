package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
)

func TestMockProfileFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(file, []byte("name: mine\nlatency:\n  beta: 3ms\n  c_decode: 20us\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		check func(engine.Config) bool
	}{
		{"built-in profile", []string{"--profile", "blis-llama-3.1-8b-h100-tp1"}, func(c engine.Config) bool {
			return c.Latency.DecodePerToken > 5*time.Microsecond && c.Latency.Beta == 0 && c.NumGPUBlocks == 29205
		}},
		{"profile file", []string{"--profile", file}, func(c engine.Config) bool {
			return c.Latency.Beta == 3*time.Millisecond && c.Latency.DecodePerToken == 20*time.Microsecond && c.MaxNumSeqs == 256
		}},
		{"flag over profile file", []string{"--profile", file, "--beta", "4ms", "--c-decode", "1us"}, func(c engine.Config) bool {
			return c.Latency.Beta == 4*time.Millisecond && c.Latency.DecodePerToken == time.Microsecond
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := optionsOf(t, tc.args).engineConfig()
			if err != nil || !tc.check(cfg) {
				t.Fatalf("config %+v, err %v", cfg, err)
			}
		})
	}
	if _, err := optionsOf(t, []string{"--preset", "fast", "--profile", file}).engineConfig(); err == nil {
		t.Fatal("--preset with --profile: want a usage error")
	}
}

func TestFleetProfileFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(engine.Config) bool
		bad   string
	}{
		{"default", nil, func(c engine.Config) bool { return c.Latency.Beta == 5740*time.Microsecond }, ""},
		{"sim profile", []string{"--sim", "2", "--mock-profile", "fast"}, func(c engine.Config) bool {
			return c.Latency.Beta == 574*time.Microsecond
		}, ""},
		{"override", []string{"--mock-profile", "fast", "--mock-set", "gamma=0.5", "--mock-set", "max_num_seqs=9", "--mock-blocks", "64"},
			func(c engine.Config) bool {
				return c.Latency.Gamma == 0.5 && c.MaxNumSeqs == 9 && c.NumGPUBlocks == 64 && c.Latency.Beta == 574*time.Microsecond
			}, ""},
		{"out of range override", []string{"--mock-set", "jitter=3"}, nil, "Jitter 3"},
		{"unknown", []string{"--mock-profile", "nope.yaml"}, nil, `profile "nope.yaml"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := fleetFlagsOf(t, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := m.engineConfig()
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("error %v: want one containing %q", err, tc.bad)
				}
				return
			}
			if err != nil || !tc.check(cfg) {
				t.Fatalf("config %+v, err %v", cfg, err)
			}
		})
	}
}

func TestProfilesCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run([]string{"profiles"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, n := range profile.Names() {
		if !strings.Contains(out.String(), n) {
			t.Errorf("profile %s not listed:\n%s", n, out.String())
		}
	}
	out.Reset()
	if code := Run([]string{"profiles", "small-kv"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	p, err := profile.Parse(out.Bytes(), "shown")
	if err != nil || p.Engine.NumGPUBlocks != 512 {
		t.Fatalf("printed profile %+v, %v", p, err)
	}
	if code := Run([]string{"profiles", "nope"}, &out, &errOut); code != ExitUsage {
		t.Fatalf("unknown profile: exit %d, want %d", code, ExitUsage)
	}
}
