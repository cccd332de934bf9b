//go:build !race

package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// realEngine is ../shared/real-engine beside the repository: llama.cpp's
// llama-server b7099 (CPU; llama-server-plain-metrics is the same with
// plain /metrics text) and a tiny random-weight model.
var realEngine = filepath.Join("..", "..", "..", "..", "shared", "real-engine")

// nextServerCPU counts the servers started, to bind each to its own CPU.
var nextServerCPU int

// serverCPU returns the CPU the next llama-server is bound to: the last
// CPU first, then downwards, wrapping; −1 (unbound) on one CPU.
func serverCPU() int {
	n := runtime.NumCPU()
	if n < 2 {
		return -1
	}
	cpu := n - 1 - nextServerCPU%n
	nextServerCPU++
	return cpu
}

// startLlamaServer starts the llama-server binary bin of realEngine on a
// free loopback port with the model, 4 slots, one thread, flash attention
// off, metrics and the extra flags, and returns its URL and process id
// once /health answers. It skips the test when the real engine is absent
// and stops the server when the test ends.
//
// The server runs bound to one CPU (serverCPU). Left free on this 2-core
// VM, 40–50 % of first tokens at 1 req/s reached the client 1.5–5 ms
// after the server computed them, against 0–3 % when bound: the
// hypervisor is slow to wake an idle virtual CPU for the server's HTTP
// thread. That is the machine, not the engine (docs/calibrate-real-engine.md).
func startLlamaServer(t *testing.T, bin string, extra ...string) (string, int) {
	t.Helper()
	u, pid, _ := startLlamaServerLog(t, bin, extra...)
	return u, pid
}

// startLlamaServerLog is startLlamaServer that also returns the path of
// the server's log (its standard output and error, from its start).
func startLlamaServerLog(t *testing.T, bin string, extra ...string) (string, int, string) {
	t.Helper()
	bin = filepath.Join(realEngine, bin)
	model := filepath.Join(realEngine, "tiny-llama-h256-l4.gguf")
	for _, p := range []string{bin, model} {
		if _, err := os.Stat(p); err != nil {
			accuracySkip(t, "real engine not present (%v): llama.cpp's llama-server lives in ../shared/real-engine beside the repository", err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	// The server writes its log to a file, not a pipe: a pipe would wake a
	// reader in this process on every line the server logs.
	log, err := os.CreateTemp(t.TempDir(), "llama-server-*.log")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer log.Close()
	args := append([]string{"-m", model, "--alias", "tiny-llama", "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"-np", "4", "-t", "1", "-fa", "off", "--metrics"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := startOnCPU(cmd, serverCPU()); err != nil {
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
				return url, cmd.Process.Pid, log.Name()
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("llama-server on %s not healthy after 20 s: %v\n%s", url, err, b)
		}
		time.Sleep(100 * time.Millisecond) // polling a starting process, not a unit-test sleep
	}
}
