package cli

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// lockedBuffer is a bytes.Buffer safe for a command writing while a
// test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// listening matches the gateway's start line.
var listening = regexp.MustCompile(`gateway listening on (http://[0-9.:]+)`)

// startGatewayCmd runs `tracebench gateway args...` in-process until
// the returned stop is called; it returns the gateway's URL and stop,
// which waits for the command and returns its error and output.
func startGatewayCmd(t *testing.T, args ...string) (string, func() (error, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	root := NewRoot(&out, &errOut)
	root.SetArgs(append([]string{"gateway", "--port", "0"}, args...))
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var url string
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for url == "" {
		select {
		case err := <-done:
			cancel()
			t.Fatalf("gateway exited before listening: %v\n%s", err, errOut.String())
		case <-deadline:
			cancel()
			t.Fatalf("gateway not listening within 30 s:\n%s", errOut.String())
		case <-tick.C:
			if m := listening.FindStringSubmatch(errOut.String()); m != nil {
				url = m[1]
			}
		}
	}
	stopped := false
	stop := func() (error, string) {
		cancel()
		if stopped {
			return nil, ""
		}
		stopped = true
		err := <-done
		return err, out.String() + errOut.String()
	}
	t.Cleanup(func() { stop() })
	return url, stop
}

// TestGatewayCommand runs the command in front of an in-process mock
// fleet, replays a workload through it with `tracebench replay`, stops
// it as SIGTERM would, and reads its results with report, predict and
// calibrate. The mock runs at its own speed (5.74 ms steps) and the run
// has 96 requests of 32 output tokens: ten times faster with 48 requests
// of 8 tokens, calibrate's fit came out with a negative β now and then
// under -race (too few decode gaps against the machine's jitter), which
// measures the data, not the gateway's file.
func TestGatewayCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "gw.jsonl")
	url, stop := startGatewayCmd(t, "--mock", "2", "--policy", "prefix-cache", "--out", out)
	code, _, se := runCLI(t, "replay", "--target", url, "--workload", "shared-prefix", "-p", "requests=96",
		"-p", "rate=40", "-p", "output_len=32", "--out", filepath.Join(dir, "client.jsonl"))
	if code != 0 {
		t.Fatalf("replay through the gateway: exit %d: %s", code, se)
	}
	if err, text := stop(); err != nil || !strings.Contains(text, "results: "+out) {
		t.Fatalf("gateway: %v\n%s", err, text)
	}
	code, so, se := runCLI(t, "report", out)
	if code != 0 || !strings.Contains(so, "prefix-cache") {
		t.Fatalf("report of the gateway's results: exit %d\n%s%s", code, so, se)
	}
	code, so, se = runCLI(t, "predict", out, "--profile", "default", "--out", filepath.Join(dir, "pred"))
	if code != 0 || !strings.Contains(so, "server hit") {
		t.Fatalf("predict from the gateway's results: exit %d\n%s%s", code, so, se)
	}
	code, so, se = runCLI(t, "calibrate", out, "--partial", "--out", filepath.Join(dir, "fit.yaml"))
	if code != 0 {
		t.Fatalf("calibrate from the gateway's results: exit %d\n%s%s", code, so, se)
	}
}

// TestGatewayBadInput: each mistake is one line naming the flag or the
// backend, exit 2 for usage and 1 for an unreachable backend.
func TestGatewayBadInput(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"unknown router", []string{"--mock", "1", "--policy", "nope"}, ExitUsage, []string{"--policy", "nope"}},
		{"unknown queue", []string{"--mock", "1", "--queue", "nope"}, ExitUsage, []string{"--queue", "nope"}},
		{"unreachable backend", []string{"--target", dead}, ExitError, []string{dead}},
		{"no backend", nil, ExitUsage, []string{"--target"}},
		{"replay's --api", []string{"--mock", "1", "--api", "chat"}, ExitUsage, []string{"--api"}},
		{"--sim", []string{"--sim", "2"}, ExitUsage, []string{"--sim"}},
		{"bad port", []string{"--mock", "1", "--port", "70000"}, ExitUsage, []string{"--port"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"gateway", "--out", filepath.Join(t.TempDir(), "g.jsonl")}, tc.args...)
			code, _, se := runCLI(t, args...)
			lines := strings.Split(strings.TrimSpace(se), "\n")
			if code != tc.code || len(lines) != 1 {
				t.Fatalf("exit %d (want %d), stderr %d lines (want 1):\n%s", code, tc.code, len(lines), se)
			}
			for _, w := range tc.want {
				if !strings.Contains(se, w) {
					t.Errorf("error does not name %q: %s", w, se)
				}
			}
		})
	}
}

// TestGatewayKVEventsAndPD routes through the gateway with a router that
// reads the backends' KV events (the in-process fleet publishes them, as
// for replay) and with prefill/decode disaggregation, and checks the
// gateway's results: the KV streams subscribed and predicting hits, and
// every request served in two phases.
func TestGatewayKVEventsAndPD(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, rs []*results.Result, stop *results.Stop)
	}{
		{"precise-prefix", []string{"--policy", "precise-prefix"}, func(t *testing.T, rs []*results.Result, stop *results.Stop) {
			predicted := 0
			for _, r := range rs {
				predicted += r.PredictedHitTokens
			}
			if predicted == 0 || stop.Extra[replay.KVExtraKey(0, "subscribed")] != 1 || stop.Extra[replay.KVExtraKey(0, "batches")] == 0 {
				t.Errorf("KV events: %d predicted hit tokens, stop extras %v", predicted, stop.Extra)
			}
		}},
		{"P/D", []string{"--policy", "prefix-cache", "--pd-ratio", "1:1"}, func(t *testing.T, rs []*results.Result, _ *results.Stop) {
			for _, r := range rs {
				if r.PD == nil || r.PD.Backend != 0 || r.Backend != 1 || r.PD.ErrClass != "" {
					t.Fatalf("result %s not served prefill on b0, decode on b1: backend %d, pd %+v", r.ID, r.Backend, r.PD)
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "gw.jsonl")
			url, stop := startGatewayCmd(t, append([]string{"--mock", "2", "--mock-time-scale", "0.1", "--out", out}, tc.args...)...)
			code, _, se := runCLI(t, "replay", "--target", url, "--workload", "shared-prefix", "-p", "requests=24",
				"-p", "rate=40", "-p", "output_len=4", "--out", filepath.Join(dir, "client.jsonl"))
			if code != 0 {
				t.Fatalf("replay through the gateway: exit %d: %s", code, se)
			}
			if err, text := stop(); err != nil {
				t.Fatalf("gateway: %v\n%s", err, text)
			}
			rs, st := readGatewayResults(t, out)
			if len(rs) != 24 {
				t.Fatalf("%d results, want 24", len(rs))
			}
			for _, r := range rs {
				if !r.OK() {
					t.Fatalf("result %s failed: %s %s", r.ID, r.ErrClass, r.Err)
				}
			}
			tc.check(t, rs, st)
		})
	}
}

// readGatewayResults reads a results file's Results and stop line.
func readGatewayResults(t *testing.T, path string) ([]*results.Result, *results.Stop) {
	t.Helper()
	rd, out, _ := testfixtures.ReadResults(t, path)
	if rd.Stop == nil {
		t.Fatalf("%s has no stop line", path)
	}
	return out, rd.Stop
}
