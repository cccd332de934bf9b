package mockserver

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
)

func TestKVPressureOverHTTP(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.NumGPUBlocks, cfg.MaxNumSeqs = 64, 16 // 1,024 tokens for 30 × 300
	_, base := startServer(t, Options{Engine: cfg, TimeScale: 0.05})
	const n, tokens = 30, 100
	var wg sync.WaitGroup
	got := make([]int, n)
	usageOut := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"prompt":%s,"max_tokens":%d,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
				tokenPrompt(200, i), tokens)
			_, chunks, err := sse(t, context.Background(), base+"/v1/completions", body)
			if err != nil || len(chunks) < 2 {
				return
			}
			got[i] = len(chunks) - 2 // minus usage and [DONE]
			if u := decode(t, chunks[len(chunks)-2].data).Usage; u != nil {
				usageOut[i] = u.CompletionTokens
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if got[i] != tokens || usageOut[i] != tokens {
			t.Errorf("request %d: %d token chunks, usage %d; want %d", i, got[i], usageOut[i], tokens)
		}
	}
	m := scrape(t, base)
	if m["vllm:num_preemptions_total"] == 0 || m["tracebench_mock_kv_evictions_total"] == 0 {
		t.Fatalf("preemptions %v, evictions %v: want both counted", m["vllm:num_preemptions_total"], m["tracebench_mock_kv_evictions_total"])
	}
	if m["vllm:request_success_total{finished_reason=length}"] != n || m["vllm:generation_tokens_total"] != n*tokens {
		t.Fatalf("finished %v, generated %v; want %d and %d", m["vllm:request_success_total{finished_reason=length}"],
			m["vllm:generation_tokens_total"], n, n*tokens)
	}
	t.Logf("30 requests on 64 blocks over HTTP: %v preemptions, %v evictions", m["vllm:num_preemptions_total"],
		m["tracebench_mock_kv_evictions_total"])
}
