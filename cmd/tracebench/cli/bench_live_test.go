package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/metrics"
)

// TestBenchLiveFair benches two policies on live targets (mock fleets
// started on their own): a dialect with a cache flush flushes before each
// policy; one without rotates the order by the seed and every run says
// its caches persisted. Both probe the targets' speed first.
func TestBenchLiveFair(t *testing.T) {
	tests := []struct {
		dialect string
		caches  string // prefix of the header's bench_caches
		order   []string
		warn    string
	}{
		{dialect.VLLM, "flushed", []string{"round-robin", "prefix-cache"}, ""},
		{dialect.OpenAI, "persisted", []string{"prefix-cache", "round-robin"}, "prefix caches persisted between policies"},
	}
	for _, tc := range tests {
		t.Run(tc.dialect, func(t *testing.T) {
			f := startTestFleet(t, tc.dialect)
			dir := t.TempDir()
			args := []string{"bench", "--policies", "round-robin,prefix-cache", "--workload", "shared-prefix",
				"--workload-param", "requests=12", "--rate", "40", "--seed", "1", "--out", dir}
			for _, u := range f.URLs() {
				args = append(args, "--target", u)
			}
			code, _, stderr := runCLI(t, args...)
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "speed probe: the targets served") {
				t.Errorf("no speed probe line in stderr:\n%s", stderr)
			}
			var started []time.Time
			for i, p := range tc.order {
				sum, err := metrics.Summarize(bench.ResultsPath(dir, p), metrics.DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				caches, order := sum.Header.Config.BenchCaches, sum.Header.Config.BenchOrder
				if !strings.HasPrefix(caches, tc.caches) || order != []string{"1 of 2", "2 of 2"}[i] {
					t.Errorf("%s: bench_caches %q order %q, want %s… and %d of 2", p, caches, order, tc.caches, i+1)
				}
				if tc.warn != "" && !strings.Contains(strings.Join(sum.Warnings, "\n"), tc.warn) {
					t.Errorf("%s: no warning %q in %q", p, tc.warn, sum.Warnings)
				}
				started = append(started, sum.Header.Started)
			}
			if !started[0].Before(started[1]) {
				t.Errorf("runs started %v: want the order %v", started, tc.order)
			}
		})
	}
}
