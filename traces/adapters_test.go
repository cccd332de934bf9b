package traces

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

// TestWorkloadAdapters: by group, group g's requests name lora-(g mod n);
// with a Zipf skew the counts fall with the adapter's rank (exponent 1
// over 3 adapters: shares 6/11, 3/11, 2/11).
func TestWorkloadAdapters(t *testing.T) {
	count := func(params map[string]string) (map[string]int, map[string]map[string]bool) {
		t.Helper()
		src, err := newTextWorkload("shared-prefix", params, 1)
		if err != nil {
			t.Fatal(err)
		}
		n, bySystem := map[string]int{}, map[string]map[string]bool{}
		for {
			r, err := src.Next()
			if errors.Is(err, io.EOF) {
				return n, bySystem
			}
			if err != nil {
				t.Fatal(err)
			}
			n[r.LoRA]++
			sys := r.Messages[0].Content
			if bySystem[sys] == nil {
				bySystem[sys] = map[string]bool{}
			}
			bySystem[sys][r.LoRA] = true
		}
	}
	n, bySystem := count(map[string]string{"groups": "4", "prompts_per_group": "10", "adapters": "2", "system_len": "8"})
	if fmt.Sprint(n) != "map[lora-0:20 lora-1:20]" {
		t.Errorf("by group: %v, want 20 requests each for lora-0 and lora-1", n)
	}
	for sys, as := range bySystem {
		if len(as) != 1 {
			t.Errorf("system prompt %.20q names adapters %v, want one", sys, as)
		}
	}
	n, _ = count(map[string]string{"groups": "1", "prompts_per_group": "1100", "adapters": "3", "adapter_skew": "1", "system_len": "8"})
	for k, want := range []float64{600, 300, 200} {
		if got := float64(n[fmt.Sprint("lora-", k)]); got < 0.85*want || got > 1.15*want {
			t.Errorf("zipf: lora-%d named %v times of 1100, want about %v", k, got, want)
		}
	}
	if n, _ := count(map[string]string{"groups": "2", "prompts_per_group": "2"}); fmt.Sprint(n) != "map[:4]" {
		t.Errorf("no adapters: %v, want every request on the base model", n)
	}
}
