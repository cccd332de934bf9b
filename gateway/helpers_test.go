package gateway

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
)

// startMocks runs n bundled mock replicas on loopback, 20× faster than
// real time.
func startMocks(t testing.TB, n int, o mockserver.Options) []string {
	t.Helper()
	if o.TimeScale == 0 {
		o.TimeScale = 0.05
	}
	ctx, cancel := context.WithCancel(context.Background())
	f, err := mockserver.StartFleet(ctx, mockserver.FleetConfig{Replicas: n, Options: o})
	if err != nil {
		cancel()
		t.Fatalf("start mock: %v", err)
	}
	t.Cleanup(func() { _ = f.Close(); cancel() })
	return f.URLs()
}

// testGateway is a Gateway serving on loopback for a test.
type testGateway struct {
	url     string
	results string
	g       *Gateway
	cancel  context.CancelFunc
	done    chan struct{}
	stop    results.Stop
	err     error
	w       *results.Writer
}

// gwConfig sets up a test gateway: router and queue names, and edits
// of the Options.
type gwConfig struct {
	router, queue string
	client        client.Options
	edit          func(*Options)
}

// startGateway serves a Gateway in front of backends until the test
// ends (or shutdown is called).
func startGateway(t testing.TB, backends []string, c gwConfig) *testGateway {
	t.Helper()
	if c.router == "" {
		c.router = "round-robin"
	}
	if c.queue == "" {
		c.queue = "fcfs"
	}
	r, err := policies.NewRouter(c.router, nil, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	q, err := policies.NewQueue(c.queue, nil, rand.New(rand.NewPCG(1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	client := client.New(c.client)
	t.Cleanup(client.Close)
	tg := &testGateway{results: filepath.Join(t.TempDir(), "gateway.jsonl"), done: make(chan struct{})}
	if tg.w, err = results.Create(tg.results, results.Header{Policy: c.router, Router: c.router, Queue: c.queue,
		Mode: "target", Backends: backends, Trace: "gateway"}); err != nil {
		t.Fatal(err)
	}
	o := Options{Backends: backends, Client: client, Router: r, Queue: q, Results: tg.w}
	if c.edit != nil {
		c.edit(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tg.cancel = cancel
	if tg.g, err = New(ctx, o); err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	tg.url = "http://" + ln.Addr().String()
	go func() {
		defer close(tg.done)
		tg.stop, tg.err = tg.g.Serve(ctx, ln)
		if err := tg.w.Close(tg.stop); err != nil && tg.err == nil {
			tg.err = err
		}
	}()
	t.Cleanup(func() { tg.shutdown() })
	return tg
}

// shutdown stops the gateway as SIGTERM does and waits until the results
// file is written.
func (tg *testGateway) shutdown() results.Stop {
	tg.cancel()
	<-tg.done
	return tg.stop
}

// readResults returns the Results of a results file.
func readResults(t testing.TB, path string) []*results.Result {
	t.Helper()
	_, out, _ := testfixtures.ReadResults(t, path)
	return out
}

// post sends body to the gateway's path with a plain net/http client and
// returns the status, headers and whole answer.
func post(t testing.TB, url, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read answer of %s: %v", url, err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// waitFor polls cond every millisecond for up to 10 s (a bounded wait
// on another goroutine's progress, not a sleep standing for it).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
