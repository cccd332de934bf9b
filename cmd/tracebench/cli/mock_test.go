package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
)

func TestMockFlagsOverrideThePreset(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(engine.Config) bool
	}{
		{"preset only", []string{"--preset", "small-kv"}, func(c engine.Config) bool { return c.NumGPUBlocks == 512 }},
		{"flag over preset", []string{"--preset", "small-kv", "--num-gpu-blocks", "99"}, func(c engine.Config) bool { return c.NumGPUBlocks == 99 }},
		{"unchanged flags keep the preset", []string{"--preset", "linear"}, func(c engine.Config) bool {
			return c.Latency.Gamma == 0 && c.Latency.PrefillPerToken == 0
		}},
		{"latency flags", []string{"--beta", "2ms", "--gamma", "0.5", "--batching", "static"}, func(c engine.Config) bool {
			return c.Latency.Beta == 2*time.Millisecond && c.Latency.Gamma == 0.5 && c.Batching == engine.Static
		}},
		{"presets evict like vLLM", []string{"--preset", "small-kv"}, func(c engine.Config) bool { return c.Eviction == engine.EvictLRU }},
		{"eviction flag", []string{"--eviction", "lfu"}, func(c engine.Config) bool { return c.Eviction == engine.EvictLFU }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := optionsOf(t, tc.args).engineConfig()
			if err != nil || !tc.check(cfg) {
				t.Fatalf("config %+v, err %v", cfg, err)
			}
		})
	}
}

// optionsOf parses args into fresh mock options.
func optionsOf(t *testing.T, args []string) *mockOptions {
	t.Helper()
	o := &mockOptions{}
	fs := pflag.NewFlagSet("mock", pflag.ContinueOnError)
	o.bind(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	o.changed = fs.Changed
	return o
}

func TestMockServerFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(mockserver.Options) bool
	}{
		{"defaults", nil, func(o mockserver.Options) bool {
			return !o.StrictModel && o.ModelName == mockserver.DefaultModelName && o.MaxQueue == 0 && o.TimeScale == 1
		}},
		{"strict model", []string{"--model", "m", "--strict-model"}, func(o mockserver.Options) bool {
			return o.StrictModel && o.ModelName == "m"
		}},
		{"queue, time scale, tokenizer", []string{"--max-queue", "7", "--time-scale", "0.5", "--tokenizer", "tiktoken"},
			func(o mockserver.Options) bool {
				return o.MaxQueue == 7 && o.TimeScale == 0.5 && o.Tokenizer == "tiktoken"
			}},
		{"faults", []string{"--error-rate", "0.1", "--error-status", "429", "--disconnect-after", "5"},
			func(o mockserver.Options) bool {
				return o.Faults.ErrorRate == 0.1 && o.Faults.ErrorStatus == 429 && o.Faults.DisconnectAfter == 5
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc, err := optionsOf(t, tc.args).fleetConfig()
			if err != nil || !tc.check(fc.Options) {
				t.Fatalf("options %+v, err %v", fc.Options, err)
			}
		})
	}
}

// TestMockUsageErrors: bad mock flags, the fault flags included, exit
// with the usage code and name what is wrong before any server starts.
func TestMockUsageErrors(t *testing.T) {
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{"--replicas", "0"}, "--replicas"},
		{[]string{"--preset", "nope"}, "nope"},
		{[]string{"--port", "65535", "--replicas", "2"}, "--port"},
		{[]string{"--time-scale", "0"}, "--time-scale"},
		{[]string{"--batching", "sometimes"}, "sometimes"},
		{[]string{"--eviction", "fifo"}, `Eviction "fifo"`},
		{[]string{"--error-rate", "2"}, "error rate 2"},
		{[]string{"--refuse-rate", "-0.5"}, "refuse rate -0.5"},
		{[]string{"--error-status", "404"}, "error status 404"},
		{[]string{"--stall", "-1s"}, "negative"},
		{[]string{"--max-queue", "-1"}, "--max-queue -1"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out strings.Builder
			args := append([]string{"mock", "--port", "0"}, tc.args...)
			if code := Run(args, &out, &out); code != ExitUsage {
				t.Errorf("exit %d, want %d (%s)", code, ExitUsage, out.String())
			}
			if !strings.Contains(out.String(), tc.mention) {
				t.Errorf("error %q does not mention %q", out.String(), tc.mention)
			}
		})
	}
}

func TestRunMockServesUntilCancelled(t *testing.T) {
	o := optionsOf(t, []string{"--replicas", "2", "--port", "0", "--preset", "fast"})
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- runMock(ctx, o, pw); pw.Close() }()
	sc := bufio.NewScanner(pr)
	var urls []string
	for len(urls) < 2 && sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "http://"); ok {
			urls = append(urls, "http://"+u)
		}
	}
	for _, u := range urls {
		resp, err := http.Get(u + "/health")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s/health: %v", u, err)
		}
		resp.Body.Close()
	}
	cancel()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestMockLlamaCppProfileDialect: a llama.cpp-family profile (per-slot
// cache) answers as llama.cpp unless told otherwise, keeps the bare
// OpenAI dialect, and is refused by name with a vLLM or SGLang dialect.
func TestMockLlamaCppProfileDialect(t *testing.T) {
	prof := writeProfile(t, t.TempDir(), "name: slots\nengine:\n  cache: per-slot\n  max_num_seqs: 4\n")
	tests := []struct {
		name    string
		args    []string
		dialect string
		err     string
	}{
		{"default dialect", nil, "llamacpp", ""},
		{"openai kept", []string{"--dialect", "openai"}, "openai", ""},
		{"vllm refused", []string{"--dialect", "vllm"}, "", "--dialect vllm: profile " + prof + " is a llama.cpp-family engine (cache per-slot)"},
		{"sglang refused", []string{"--dialect", "sglang"}, "", "which no sglang server is"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := optionsOf(t, append([]string{"--profile", prof}, tc.args...)).mockFleet()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || f.Server.Dialect != tc.dialect {
				t.Fatalf("dialect %q, err %v; want %q", f.Server.Dialect, err, tc.dialect)
			}
		})
	}
	f, err := optionsOf(t, nil).mockFleet()
	if err != nil || f.Server.Dialect != "vllm" {
		t.Fatalf("default profile: dialect %q, err %v; want vllm", f.Server.Dialect, err)
	}
}
