package replay

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLoRAInfo(t *testing.T) {
	head := "# HELP vllm:lora_requests_info Running stats on lora requests.\n# TYPE vllm:lora_requests_info gauge\n"
	for _, tc := range []struct {
		name, text string
		want       *LoRAInfo
	}{
		{"absent", "vllm:num_requests_running 1\n", nil},
		{"one sample", head + `vllm:lora_requests_info{max_lora="2",running_lora_adapters="a,b",waiting_lora_adapters=""} 1.7e9` + "\n",
			&LoRAInfo{MaxLoRA: 2, Running: []string{"a", "b"}}},
		// vLLM V0 kept one sample per label set; the newest (largest
		// timestamp value) is the current state.
		{"newest wins", head + `vllm:lora_requests_info{max_lora="1",running_lora_adapters="old",waiting_lora_adapters=""} 100` + "\n" +
			`vllm:lora_requests_info{max_lora="1",running_lora_adapters="new",waiting_lora_adapters="w1, w2"} 200` + "\n",
			&LoRAInfo{MaxLoRA: 1, Running: []string{"new"}, Waiting: []string{"w1", "w2"}}},
		{"bad max_lora", head + `vllm:lora_requests_info{max_lora="x",running_lora_adapters="",waiting_lora_adapters=""} 1` + "\n",
			&LoRAInfo{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseMetrics(strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, m.LoRA); d != "" {
				t.Errorf("LoRA (-want +got):\n%s", d)
			}
		})
	}
}

// TestTrackerLoRA: a scrape with vllm:lora_requests_info marks the
// Backend's LoRA view as scraped; a failed scrape or a page without it
// clears the view, so the filter falls back to client counts.
func TestTrackerLoRA(t *testing.T) {
	tr := NewTracker([]string{"http://127.0.0.1:1"})
	tr.OnScrape(0, ServerMetrics{OK: true, LoRA: &LoRAInfo{MaxLoRA: 2, Running: []string{"a"}}})
	b := tr.Snapshot(0).Backends[0]
	if !b.LoRAScraped || b.MaxLoRA != 2 || len(b.LoRARunning) != 1 {
		t.Fatalf("after scrape: %+v", b)
	}
	for _, m := range []ServerMetrics{{OK: false}, {OK: true}} {
		tr.OnScrape(0, m)
		if b := tr.Snapshot(0).Backends[0]; b.LoRAScraped || b.LoRARunning != nil || b.MaxLoRA != 0 {
			t.Errorf("after %+v: view kept %+v", m, b)
		}
	}
}
