package mockserver

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// TestLoRAOverHTTP: a server with adapters sql and chat serves them, gives
// vLLM's 404 for any other model, and exports vLLM's LoRA info series.
func TestLoRAOverHTTP(t *testing.T) {
	opts := fastOptions()
	opts.Engine.LoRA = engine.LoRAConfig{MaxLoras: 1, LoadCost: time.Millisecond}
	opts.LoRAModules = []string{"sql", "chat"}
	_, base := startServer(t, opts)
	for _, tc := range []struct {
		model  string
		status int
		msg    string
	}{
		{"sql", http.StatusOK, ""},
		{"mock-model", http.StatusOK, ""},
		{"law", http.StatusNotFound, "The model `law` does not exist."},
	} {
		code, _, body := post(t, base+"/v1/completions", `{"model":"`+tc.model+`","prompt":"a b c","max_tokens":2}`)
		if code != tc.status || !strings.Contains(body, tc.msg) {
			t.Errorf("model %s: %d %s, want %d %q", tc.model, code, body, tc.status, tc.msg)
		}
	}
	_, _, text := get(t, base+"/metrics")
	for _, want := range []string{`vllm:lora_requests_info{max_lora="1",running_lora_adapters="",waiting_lora_adapters=""}`,
		`tracebench_mock_lora_loads_total{model_name="mock-model"} 1`} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
