package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// llmdSim is llm-d's vLLM simulator, shared beside the repository.
var llmdSim = filepath.Join("..", "..", "shared", "llm-d-inference-sim", "llm-d-inference-sim")

// startLLMDSim starts llm-d-inference-sim on a free loopback port, with
// extra flags after the common ones, and waits (at most 10 s) until it
// lists its models; it skips the test when the binary is absent.
func startLLMDSim(t *testing.T, extra ...string) string {
	t.Helper()
	skipWithoutLLMDSim(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return startLLMDSimOn(t, port, extra...)
}

// skipWithoutLLMDSim skips the test when the simulator is absent.
func skipWithoutLLMDSim(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(llmdSim); err != nil {
		t.Skipf("llm-d-inference-sim not found at %s: interop test skipped", llmdSim)
	}
}

// startLLMDSimOn starts llm-d-inference-sim on port (see startLLMDSim).
func startLLMDSimOn(t *testing.T, port int, extra ...string) string {
	t.Helper()
	cmd := exec.Command(llmdSim, append([]string{"--port", fmt.Sprint(port), "--model", "tiny", "--force-dummy-tokenizer",
		"--time-to-first-token", "10ms", "--inter-token-latency", "2ms", "--kv-cache-transfer-latency", "5ms"}, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start llm-d-inference-sim: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		if resp, err := http.Get(base + "/v1/models"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case <-deadline:
			t.Fatalf("llm-d-inference-sim on %s did not answer /v1/models within 10 s", base)
		case <-tick.C:
		}
	}
}

// TestPDInteropLLMDSim runs vLLM's two-step exchange against llm-d's
// simulator: its prefill answer (finish_reason remote_decode, with
// kv_transfer_params), then the decode request carrying those params, on
// it and on tracebench's mock in the decode role.
func TestPDInteropLLMDSim(t *testing.T) {
	prefill := startLLMDSim(t)
	decode := startLLMDSim(t)
	body := `{"model":"tiny","prompt":"one two three four five","max_tokens":1,"stream":false,` +
		`"kv_transfer_params":{"do_remote_decode":true,"do_remote_prefill":false,"remote_engine_id":null,` +
		`"remote_block_ids":null,"remote_host":null,"remote_port":null}}`
	resp, err := http.Post(prefill+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		KV map[string]any `json:"kv_transfer_params"`
	}
	err = json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	if err != nil || len(ans.Choices) != 1 || ans.Choices[0].FinishReason != "remote_decode" {
		t.Fatalf("prefill answer %+v (%v): want finish_reason remote_decode", ans, err)
	}
	for _, k := range []string{"do_remote_prefill", "remote_engine_id", "remote_block_ids", "remote_host", "remote_port"} {
		if _, ok := ans.KV[k]; !ok {
			t.Errorf("prefill answer's kv_transfer_params %v lack %s", ans.KV, k)
		}
	}
	mock := startMockWith(t, mockserver.Options{TimeScale: 0.05, Role: mockserver.RoleDecode})
	c := client.New(client.Options{Stream: true, TokenExact: true, Model: "tiny"})
	defer c.Close()
	start := time.Now()
	for _, dec := range []string{decode, mock} {
		req := &traces.Request{ID: "r", Prompt: strings.Repeat("word ", 40), InputTokens: 40, OutputTokens: 5}
		res := &results.Result{PD: &results.PrefillPhase{Protocol: results.PDTwoStep}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c.DoPD(ctx, prefill, dec, req, res, func() time.Duration { return time.Since(start) }, nil, nil)
		cancel()
		if !res.OK() || res.PD.ErrClass != "" || res.CompletionTokens != 5 || res.PD.Done == 0 {
			t.Errorf("decode on %s: class %q %s, prefill %+v, %d tokens; want 5 tokens after a good prefill",
				dec, res.ErrClass, res.Err, res.PD, res.CompletionTokens)
		}
	}
}
