package replay_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// dropRelay stands between one replica's KV event publisher and the
// replay: it reads every batch the replica publishes, in order, from the
// replica's replay socket (so that it misses none), and republishes all
// but the first (sequence number 0), which it drops on purpose, as a
// publisher that dials a listener late loses its first batches. Its PUB
// socket binds a free loopback port (dial mode, Endpoint) or dials the
// replay's listener with llm-d's topic (listen mode).
type dropRelay struct {
	src, pub zmq4.Socket
	topic    []byte
	dropped  atomic.Int64
	ready    chan struct{} // closed once the PUB socket is bound or connected
	done     chan struct{}
}

// startDropRelay relays from the replica's replay endpoint src; listen
// empty binds, else it dials listen with topic.
func startDropRelay(ctx context.Context, t *testing.T, src, listen, topic string) *dropRelay {
	t.Helper()
	r := &dropRelay{src: zmq4.NewDealer(ctx), topic: []byte(topic), ready: make(chan struct{}), done: make(chan struct{}),
		pub: zmq4.NewPub(ctx, zmq4.WithDialerRetry(10*time.Millisecond), zmq4.WithDialerMaxRetries(-1))}
	t.Cleanup(func() { _ = r.src.Close(); _ = r.pub.Close(); <-r.done })
	if err := r.src.Dial(src); err != nil {
		t.Fatal(err)
	}
	if listen == "" {
		if err := r.pub.Listen("tcp://127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		close(r.ready)
	} else {
		go func() {
			if r.pub.Dial(listen) == nil {
				close(r.ready)
			}
		}()
	}
	go r.run(ctx)
	return r
}

// Endpoint is the bound PUB endpoint (dial mode).
func (r *dropRelay) Endpoint() string { return "tcp://" + r.pub.Addr().String() }

// run asks the replay socket every 5 ms for the batches from the next
// one on and relays them, until ctx ends or a socket fails.
func (r *dropRelay) run(ctx context.Context) {
	defer close(r.done)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var next uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var sb [8]byte
		binary.BigEndian.PutUint64(sb[:], next)
		if r.src.SendMulti(zmq4.NewMsgFrom([]byte{}, sb[:])) != nil {
			return
		}
		for { // [empty, seq, payload] up to the end marker, seq −1
			msg, err := r.src.Recv()
			if err != nil {
				return
			}
			if len(msg.Frames) != 3 || len(msg.Frames[1]) != 8 {
				continue
			}
			seq := binary.BigEndian.Uint64(msg.Frames[1])
			if seq == ^uint64(0) {
				break
			}
			if seq < next {
				continue
			}
			next = seq + 1
			if seq == 0 {
				r.dropped.Add(1)
				continue
			}
			_ = r.pub.SendMulti(zmq4.NewMsgFrom(r.topic, msg.Frames[1], msg.Frames[2]))
		}
	}
}

// lateRun is the outcome of one run behind drop relays.
type lateRun struct {
	stop    results.Stop
	results []*results.Result
	dropped int64
}

// lateGroups is how many prefix groups lateWorkload cycles through: a
// group's next request comes lateGroups arrivals after its last, long
// after the events of the last have reached the router even on a busy
// machine.
const lateGroups = 8

// lateWorkload returns n token-id requests 100 ms apart, request i of
// prefix group i mod lateGroups: 64 tokens (4 blocks of 16) shared by
// its group, then 32 of its own.
func lateWorkload(n int) []traces.Request {
	out := make([]traces.Request, n)
	for i := range out {
		ids := make([]int, 96)
		for j := range ids {
			ids[j] = 500 + j + (i%lateGroups)*1000
			if j >= 64 {
				ids[j] = 90000 + i*100 + j
			}
		}
		out[i] = traces.Request{ID: fmt.Sprint(i), Arrival: time.Duration(i) * 100 * time.Millisecond,
			TokenIDs: ids, InputTokens: len(ids), OutputTokens: 4}
	}
	return out
}

// runBehindDropRelays replays n lateWorkload requests through
// precise-prefix (with params) against a mock fleet of replicas whose
// first KV event batch the relays drop; listen selects listen mode and
// withReplay hands the router the replicas' replay sockets.
func runBehindDropRelays(t *testing.T, replicas, n int, listen, withReplay bool, params policies.Params) lateRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := mockserver.StartFleet(ctx, mockserver.FleetConfig{Replicas: replicas, KVEvents: true,
		Options: mockserver.Options{TimeScale: 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	_, reps := f.KVEventEndpoints()
	listenAt := ""
	if listen {
		listenAt = freeEndpoint(t)
	}
	relays := make([]*dropRelay, replicas)
	eps := make([]replay.KVEndpoint, replicas)
	for i, u := range f.URLs() {
		topic := ""
		if listen {
			topic = "kv@" + strings.TrimPrefix(u, "http://") + "@" + mockserver.DefaultModelName
		}
		relays[i] = startDropRelay(ctx, t, reps[i], listenAt, topic)
		if !listen {
			eps[i].Pub = relays[i].Endpoint()
		}
		if withReplay {
			eps[i].Replay = reps[i]
		}
	}
	// The first request waits until every relay is connected, so that
	// what the replay misses is the batch dropped on purpose.
	ready := make(chan struct{})
	go func() {
		for _, r := range relays {
			select {
			case <-r.ready:
			case <-ctx.Done():
			}
		}
		close(ready)
	}()
	r, err := policies.NewRouter("precise-prefix", params, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := policies.NewQueue("fcfs", nil, nil)
	var out lateRun
	out.stop, err = replay.Run(ctx, replay.Options{Common: replay.Common{
		Source: &gatedSource{ready: ready, reqs: lateWorkload(n)},
		Router: r, Queue: q, OnResult: func(r *results.Result) { out.results = append(out.results, r) }},
		Backends: f.URLs(), Client: client.New(client.Options{Stream: true, TokenExact: true}),
		KVEvents: eps, KVListen: replay.KVListen{Endpoint: listenAt}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range relays {
		out.dropped += r.dropped.Load()
	}
	return out
}

// hitRates returns the predicted and the server's prefix hit rates of
// rs: cached prompt tokens over prompt tokens.
func hitRates(t *testing.T, rs []*results.Result) (pred, server float64) {
	t.Helper()
	var p, c, in int
	for _, r := range rs {
		if !r.OK() {
			t.Fatalf("request %d failed: %s", r.Seq, r.Err)
		}
		p += r.PredictedHitTokens
		c += r.CachedTokens
		in += r.PromptTokens
	}
	if in == 0 {
		t.Fatal("no prompt tokens")
	}
	return float64(p) / float64(in), float64(c) / float64(in)
}

// TestKVEventsFirstBatchDroppedReplayed drops every replica's first KV
// event batch on its way to the replay, in listen mode (the publishers
// dial the replay, as llm-d-inference-sim and llm-d's vLLM do) and in
// dial mode. Each stream fetches the batch from the replica's replay
// socket (polled until the first live batch, which would show the gap
// too), and the router's predicted hit rate ends within 1 point of the
// servers'.
func TestKVEventsFirstBatchDroppedReplayed(t *testing.T) {
	for _, listen := range []bool{true, false} {
		t.Run(map[bool]string{true: "listen", false: "dial"}[listen], func(t *testing.T) {
			run := runBehindDropRelays(t, 2, 40, listen, true, nil)
			if run.dropped != 2 {
				t.Fatalf("the relays dropped %d batches, want each replica's first", run.dropped)
			}
			pred, server := hitRates(t, run.results)
			t.Logf("hit rate predicted %.4f, servers %.4f", pred, server)
			if server < 0.3 || math.Abs(pred-server) > 0.01 {
				t.Errorf("hit rate predicted %.4f, servers %.4f: want shared prefixes hit and within 1 point", pred, server)
			}
			for b := range 2 {
				x := func(n string) float64 { return run.stop.Extra[replay.KVExtraKey(b, n)] }
				if x("replayed") < 1 || x("lost_at_start") != 0 || x("lost") != 0 || x("malformed") != 0 || x("orphans") != 0 {
					t.Errorf("backend %d: replayed %v lost at start %v lost %v malformed %v orphans %v, "+
						"want the dropped batch replayed and nothing lost, malformed or orphaned",
						b, x("replayed"), x("lost_at_start"), x("lost"), x("malformed"), x("orphans"))
				}
			}
		})
	}
}

// TestKVEventsFirstBatchDroppedNoReplay drops a replica's first KV event
// batch with no replay socket to recover it, blocks keyed by their token
// ids as for vLLM and llm-d-inference-sim. The requests reusing the lost
// batch's prefix store their new blocks under a parent never seen: those
// events are counted orphans, not malformed, and start chains of their
// own, which no prompt matches. The router never predicts a hit the
// server does not give, and the prefixes stored after the loss are
// predicted.
func TestKVEventsFirstBatchDroppedNoReplay(t *testing.T) {
	run := runBehindDropRelays(t, 1, 16, true, false, policies.Params{"hashes": traces.ParamString("tokens")})
	if run.dropped != 1 {
		t.Fatalf("the relay dropped %d batches, want the first", run.dropped)
	}
	x := func(n string) float64 { return run.stop.Extra[replay.KVExtraKey(0, n)] }
	if x("malformed") != 0 || x("orphans") < 1 || x("hashes_tokens") != 1 || x("blocks") == 0 {
		t.Errorf("malformed %v orphans %v rehashed %v blocks %v: want orphans counted, nothing malformed",
			x("malformed"), x("orphans"), x("hashes_tokens"), x("blocks"))
	}
	var pred, cached int
	for _, r := range run.results {
		if r.PredictedHitTokens > r.CachedTokens {
			t.Errorf("request %d: predicted %d cached tokens, the server served %d", r.Seq, r.PredictedHitTokens, r.CachedTokens)
		}
		if r.Seq%lateGroups != 0 { // not the first request's prefix group, whose blocks were in the dropped batch
			pred += r.PredictedHitTokens
			cached += r.CachedTokens
		}
	}
	t.Logf("prefixes stored after the loss: predicted %d cached tokens, the server served %d", pred, cached)
	if cached == 0 || pred == 0 {
		t.Errorf("prefixes stored after the loss: predicted %d cached tokens, the server served %d: "+
			"want them hit and predicted", pred, cached)
	}
}

// TestKVListenInteropLLMDSimLateStart starts two llm-d-inference-sim
// servers before the replay binds the listener their publishers dial, as
// a new user does: they dial again once a second, and the batches they
// publish in between are lost on the PUB socket. With their replay
// sockets named, the listener fetches those batches and the router
// predicts every request's cached tokens; without, the events naming
// the lost blocks as parents are orphans, never malformed, and the
// router never predicts a hit the server does not give.
func TestKVListenInteropLLMDSimLateStart(t *testing.T) {
	skipWithoutLLMDSim(t)
	for _, withReplay := range []bool{true, false} {
		t.Run(map[bool]string{true: "replay", false: "no replay"}[withReplay], func(t *testing.T) {
			listen := freeEndpoint(t)
			var backends []string
			eps := make([]replay.KVEndpoint, 2)
			for i := range 2 {
				port := freePort(t)
				rep := freeEndpoint(t)
				startLLMDSimOn(t, port, "--enable-kvcache", "--kv-cache-size", "512", "--block-size", "16",
					"--zmq-endpoint", listen, "--event-batch-size", "1", "--kv-events-replay-endpoint", rep)
				backends = append(backends, fmt.Sprintf("http://127.0.0.1:%d", port))
				if withReplay {
					eps[i].Replay = rep
				}
			}
			r, err := policies.NewRouter("precise-prefix", nil, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			q, _ := policies.NewQueue("fcfs", nil, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var got []*results.Result
			ready := make(chan struct{})
			close(ready)
			stop, err := replay.Run(ctx, replay.Options{Common: replay.Common{
				Source: &gatedSource{ready: ready, reqs: spaced(kvWorkload(24), 150*time.Millisecond)},
				Router: r, Queue: q, OnResult: func(r *results.Result) { got = append(got, r) }},
				Backends: backends, Client: client.New(client.Options{Stream: true, TokenExact: true, Model: "tiny"}),
				KVListen: replay.KVListen{Endpoint: listen}, KVEvents: eps})
			if err != nil {
				t.Fatal(err)
			}
			for b := range 2 {
				x := func(n string) float64 { return stop.Extra[replay.KVExtraKey(b, n)] }
				t.Logf("backend %d: batches %v replayed %v lost at start %v orphans %v", b, x("batches"), x("replayed"),
					x("lost_at_start"), x("orphans"))
				if x("malformed") != 0 || x("events") == 0 {
					t.Errorf("backend %d: malformed %v events %v", b, x("malformed"), x("events"))
				}
				if withReplay && (x("lost_at_start") != 0 || x("orphans") != 0) {
					t.Errorf("backend %d: lost at start %v orphans %v with a replay socket", b, x("lost_at_start"), x("orphans"))
				}
			}
			if withReplay {
				checkInteropHits(t, got)
				return
			}
			for _, r := range got {
				if !r.OK() || r.PredictedHitTokens > r.CachedTokens {
					t.Errorf("request %d: ok %v, predicted %d cached tokens, the server served %d", r.Seq, r.OK(),
						r.PredictedHitTokens, r.CachedTokens)
				}
			}
		})
	}
}
