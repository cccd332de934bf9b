package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports"
)

// TestLoRAAffinityReadsScrapedAdapters replays adapter traffic against
// two mock replicas over loopback HTTP with the lora-affinity filter.
// With --scrape the filter reads the mocks' vllm:lora_requests_info;
// without, it falls back to the client's own counts; with --sim there is
// nothing to scrape. The report's LoRA affinity section says which.
func TestLoRAAffinityReadsScrapedAdapters(t *testing.T) {
	base := []string{"replay", "--workload", "shared-prefix", "-p", "adapters=3", "-p", "requests=24", "-p", "rate=40",
		"-p", "system_len=64", "-p", "question_len=16", "-p", "output_len=8",
		"--mock-set", "max_loras=1", "--filter", "lora-affinity", "--policy", "round-robin", "--seed", "1"}
	for _, c := range []struct {
		name         string
		args         []string
		serverViews  bool
		clientViews  bool
		sourcePrefix string
	}{
		{"mock with scrape", []string{"--mock", "2", "--mock-time-scale", "0.05", "--scrape", "--scrape-interval", "20ms"},
			true, false, "server metrics"},
		{"mock without scrape", []string{"--mock", "2", "--mock-time-scale", "0.05"}, false, true, "client in-flight counts"},
		{"sim", []string{"--sim", "2"}, false, true, "client in-flight counts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.jsonl")
			args := append(append(append([]string{}, base...), c.args...), "--out", out)
			if code, _, stderr := runCLI(t, args...); code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			sum, err := metrics.Summarize(out, metrics.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			v := sum.LoRAAffinity
			if v == nil {
				t.Fatal("no LoRA affinity figures in the report")
			}
			t.Logf("views %+v: %s", *v, v.Source())
			// The first decisions may precede the first scrape.
			if (v.ServerViews > 0) != c.serverViews || (c.clientViews && v.ClientViews == 0) ||
				(!c.clientViews && v.ClientViews > v.ServerViews) {
				t.Errorf("views %+v, want server %v client %v", *v, c.serverViews, c.clientViews)
			}
			if c.serverViews && v.ClientViews == 0 && !strings.HasPrefix(v.Source(), c.sourcePrefix) {
				t.Errorf("source %q, want %q…", v.Source(), c.sourcePrefix)
			}
			if !c.serverViews && !strings.HasPrefix(v.Source(), c.sourcePrefix) {
				t.Errorf("source %q, want %q…", v.Source(), c.sourcePrefix)
			}
			dir := t.TempDir()
			if err := reports.WriteMarkdown(dir, []*metrics.Summary{sum}, reports.RenderOptions{NoPlots: true}); err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(filepath.Join(dir, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), "## LoRA affinity") || !strings.Contains(string(md), c.sourcePrefix) {
				t.Error("markdown report has no LoRA affinity section")
			}
		})
	}
}
