package replay_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestKVListenInteropLLMDSim runs precise-prefix in listen mode against
// two llm-d-inference-sim servers whose publishers dial the replay's SUB
// socket with llm-d's topic kv@127.0.0.1:<port>@tiny, once with vLLM's
// positional arrays and once with its named-field maps. Every batch is
// decoded and lands on its own backend by topic; with token-id prompts
// the router, keying blocks by their token ids (hashes=auto turns to
// tokens on the simulator's own hashes), predicts each request's
// usage.prompt_tokens_details.cached_tokens exactly.
func TestKVListenInteropLLMDSim(t *testing.T) {
	for _, format := range []string{"array", "map"} {
		t.Run(format, func(t *testing.T) {
			listen := freeEndpoint(t)
			args := []string{"--enable-kvcache", "--kv-cache-size", "512", "--block-size", "16", "--zmq-endpoint", listen,
				"--event-batch-size", "1"}
			if format == "map" {
				args = append(args, "--use-vllm-map-event-format")
			}
			// The simulators start once the replay's listener is bound, as
			// llm-d's pods start beside a running scheduler; each binds a
			// replay socket.
			skipWithoutLLMDSim(t)
			var backends []string
			var eps []replay.KVEndpoint
			var ports []int
			for range 2 {
				ports = append(ports, freePort(t))
				backends = append(backends, fmt.Sprintf("http://127.0.0.1:%d", ports[len(ports)-1]))
				eps = append(eps, replay.KVEndpoint{Replay: freeEndpoint(t)})
			}
			r, err := policies.NewRouter("precise-prefix", nil, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			q, _ := policies.NewQueue("fcfs", nil, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var got []*results.Result
			type ran struct {
				stop results.Stop
				err  error
			}
			done, ready := make(chan ran, 1), make(chan struct{})
			go func() {
				stop, err := replay.Run(ctx, replay.Options{Common: replay.Common{
					Source: &gatedSource{ready: ready, reqs: spaced(kvWorkload(24), 150*time.Millisecond)},
					Router: r, Queue: q, OnResult: func(r *results.Result) { got = append(got, r) }},
					Backends: backends, Client: client.New(client.Options{Stream: true, TokenExact: true, Model: "tiny"}),
					KVListen: replay.KVListen{Endpoint: listen}, KVEvents: eps})
				done <- ran{stop, err}
			}()
			for i, p := range ports {
				startLLMDSimOn(t, p, append(args, "--kv-events-replay-endpoint", eps[i].Replay)...)
			}
			close(ready)
			res := <-done
			if res.err != nil {
				t.Fatal(res.err)
			}
			stop := res.stop
			checkInteropHits(t, got)
			for b := range 2 {
				x := func(n string) float64 { return stop.Extra[replay.KVExtraKey(b, n)] }
				if x("events") == 0 || x("blocks") == 0 || x("malformed") != 0 || x("unknown_tags") != 0 ||
					x("hashes_tokens") != 1 {
					t.Errorf("backend %d: events %v blocks %v malformed %v unknown tags %v rehashed %v", b,
						x("events"), x("blocks"), x("malformed"), x("unknown_tags"), x("hashes_tokens"))
				}
			}
			if n := stop.Extra["kv_events_unknown_topic_batches"]; n != 0 || len(stop.Notes) != 0 {
				t.Errorf("unknown topic batches %v, notes %q", n, stop.Notes)
			}
		})
	}
}

// checkInteropHits checks that every request succeeded and that the
// router's predicted hit of every request is the server's cached tokens,
// with hits at all.
func checkInteropHits(t *testing.T, got []*results.Result) {
	t.Helper()
	var pred, cached int
	for _, r := range got {
		if !r.OK() {
			t.Fatalf("request %d failed: %s", r.Seq, r.Err)
		}
		if r.PredictedHitTokens != r.CachedTokens {
			t.Errorf("request %d on backend %d: predicted %d cached tokens, the server reported %d", r.Seq, r.Backend,
				r.PredictedHitTokens, r.CachedTokens)
		}
		pred += r.PredictedHitTokens
		cached += r.CachedTokens
	}
	if cached == 0 {
		t.Fatal("no prefix hits")
	}
	t.Logf("%d requests: predicted %d cached tokens, servers reported %d", len(got), pred, cached)
}

// spaced sets reqs' arrivals every gap: the simulator publishes a
// request's blocks when it has run, so a request repeating a prefix must
// come after them for the router to know.
func spaced(reqs []traces.Request, gap time.Duration) []traces.Request {
	for i := range reqs {
		reqs[i].Arrival = time.Duration(i) * gap
	}
	return reqs
}

// gatedSource holds its first Request until ready closes (the servers
// are up), then hands out reqs with their arrivals shifted by the wait.
type gatedSource struct {
	ready <-chan struct{}
	reqs  []traces.Request
	pos   int
	shift time.Duration
}

func (g *gatedSource) Next() (traces.Request, error) {
	if g.pos == 0 {
		t0 := time.Now()
		<-g.ready
		g.shift = time.Since(t0)
	}
	if g.pos >= len(g.reqs) {
		return traces.Request{}, io.EOF
	}
	r := g.reqs[g.pos]
	g.pos++
	r.Arrival += g.shift
	return r, nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// freeEndpoint returns a tcp:// endpoint on a loopback port that was free
// a moment ago.
func freeEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "tcp://" + ln.Addr().String()
}
