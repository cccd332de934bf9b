package mockserver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/dialect"
)

// TestMockDialects: the mock answers in each dialect, and the dialect
// package reads its answers back: detection, cached tokens, metric
// names and the cache flush.
func TestMockDialects(t *testing.T) {
	const body = `{"model":"mock-model","prompt":"a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f","max_tokens":2}`
	tests := []struct {
		name       string
		cached     bool     // the second identical request reports cached tokens
		metrics    []string // names /metrics must carry
		notMetrics []string // names it must not
		flush      bool
	}{
		{dialect.VLLM, true, []string{"vllm:prefix_cache_hits_total", "vllm:num_requests_running"}, nil, true},
		{dialect.SGLang, true, []string{"sglang:cached_tokens_total", "sglang:num_queue_reqs", "sglang:token_usage"},
			[]string{"vllm:num_requests_running"}, true},
		{dialect.LlamaCpp, true, []string{"llamacpp:prompt_tokens_total", "llamacpp:requests_processing"},
			[]string{"vllm:prefix_cache_hits_total", "vllm:prompt_tokens_total"}, true},
		{dialect.OpenAI, false, nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := fastOptions()
			opts.Dialect = tc.name
			_, base := startServer(t, opts)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			det, err := dialect.Detect(ctx, http.DefaultClient, base)
			if err != nil || det.Dialect.Name != tc.name {
				t.Fatalf("detected %v (%v), want %s", det.Dialect, err, tc.name)
			}
			d := det.Dialect
			var u dialect.Usage
			for range 2 {
				code, _, resp := post(t, base+"/v1/completions", body)
				if code != http.StatusOK {
					t.Fatalf("status %d: %s", code, resp)
				}
				if u, err = client.ReadUsage([]byte(resp), d); err != nil {
					t.Fatal(err)
				}
			}
			if u.CachedKnown != tc.cached || (tc.cached && !(u.Cached > 0 && u.Cached < u.Prompt)) {
				t.Errorf("usage %+v: want cached known = %v and 0 < cached < prompt", u, tc.cached)
			}
			code, _, page := get(t, base+"/metrics")
			if tc.metrics == nil && code != http.StatusNotFound {
				t.Errorf("/metrics answered %d for a dialect without metrics", code)
			}
			for _, n := range tc.metrics {
				if !strings.Contains(page, "\n"+n) {
					t.Errorf("/metrics lacks %s", n)
				}
			}
			for _, n := range tc.notMetrics {
				if strings.Contains(page, n) {
					t.Errorf("/metrics carries %s", n)
				}
			}
			err = d.Flush(ctx, http.DefaultClient, base)
			if (err == nil) != tc.flush {
				t.Fatalf("flush: %v, want success = %v", err, tc.flush)
			}
			if !tc.flush {
				return
			}
			_, _, resp := post(t, base+"/v1/completions", body)
			if u, _ := client.ReadUsage([]byte(resp), d); u.Cached != 0 {
				t.Errorf("after a flush %d tokens were cached", u.Cached)
			}
		})
	}
}
