//go:build !race

package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// realEngine is ../shared/real-engine beside the repository: llama.cpp's
// llama-server b7099 (CPU) and a tiny random-weight model.
var realEngine = filepath.Join("..", "..", "..", "..", "shared", "real-engine")

// startLlamaServer starts llama-server on a free loopback port with 4
// slots and one thread, and stops it when the test ends.
func startLlamaServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(realEngine, "llama-server-plain-metrics")
	model := filepath.Join(realEngine, "tiny-llama-h256-l4.gguf")
	for _, p := range []string{bin, model} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("real engine not present (%v): llama.cpp's llama-server lives in ../shared/real-engine beside the repository", err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-m", model, "--alias", "tiny-llama", "--host", "127.0.0.1",
		"--port", fmt.Sprint(port), "-np", "4", "-c", "16384", "-t", "1", "-fa", "off", "--metrics")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start llama-server: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server on %s not healthy after 20 s: %v\n%s", url, err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRealEngineCalibratePredict runs the whole loop against llama.cpp:
// a designed probe and fit, a replay of another workload with scraping,
// and its prediction on simulated engines. It checks the loop works on a
// real server (cached tokens read from llama.cpp's timings, a fitted
// profile, every p50 compared) and logs the prediction errors; accuracy
// on this CPU engine is documented in docs/calibration.md.
func TestRealEngineCalibratePredict(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: about a minute against llama-server")
	}
	url := startLlamaServer(t)
	dir := t.TempDir()
	fitted := filepath.Join(dir, "fit.yaml")
	var so, se bytes.Buffer
	code := Run([]string{"calibrate", "--target", url, "--from", filepath.Join("testdata", "llama-cpp-np4.yaml"),
		"--probe-dir", filepath.Join(dir, "probe"), "--probe-budget", "30s", "--probe-max-concurrency", "4",
		"--probe-max-prompt", "256", "--probe-seed", "11", "-o", fitted}, &so, &se)
	if code != 0 {
		t.Fatalf("calibrate exit %d: %s\n%s", code, se.String(), so.String())
	}
	t.Logf("calibrate:\n%s\n%s", se.String(), so.String())
	fit, err := profile.Load(fitted)
	if err != nil {
		t.Fatal(err)
	}
	if fit.Latency.Beta <= 0 || fit.Engine.MaxNumSeqs != 4 {
		t.Fatalf("fitted profile: beta %v, max_num_seqs %d: want > 0 and the starting profile's 4", fit.Latency.Beta.D(), fit.Engine.MaxNumSeqs)
	}
	live := filepath.Join(dir, "live.jsonl")
	so.Reset()
	se.Reset()
	code = Run([]string{"replay", "--target", url, "--workload", "mixed", "-p", "requests=40", "-p", "system_len=128",
		"-p", "question_len=32", "-p", "output_len=32", "-p", "rate=1", "--seed", "4", "--policy", "round-robin",
		"--scrape", "--out", live}, &so, &se)
	if code != 0 {
		t.Fatalf("replay exit %d: %s", code, se.String())
	}
	errs, out := predictErrors(t, live, fitted, filepath.Join(dir, "pred"))
	t.Logf("predict:\n%s", out)
	for _, m := range []string{"TTFT p50", "TPOT p50", "E2E p50"} {
		if _, ok := errs[m]; !ok {
			t.Errorf("no %s prediction error in the output", m)
		}
	}
	if !strings.Contains(out, "server hit rate") || strings.Contains(out, "server hit rate      0 %") {
		t.Errorf("server hit rate missing or 0: llama.cpp's timings.cache_n not read?\n%s", out)
	}
}
