package replay_test

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
)

// dropRelay stands between one replica's KV event publisher and the
// replay: it subscribes to the replica's PUB socket and republishes every
// batch but the first (sequence number 0), which it drops on purpose, as
// a publisher that dials a listener late loses its first batches. Its
// PUB socket binds a free loopback port (dial mode, Endpoint) or dials
// the replay's listener with llm-d's topic (listen mode).
type dropRelay struct {
	sub, pub zmq4.Socket
	topic    []byte
	dropped  atomic.Int64
	ready    chan struct{} // closed once the PUB socket is bound or connected
	done     chan struct{}
}

// startDropRelay relays from the replica's PUB endpoint src; listen
// empty binds, else it dials listen with topic.
func startDropRelay(ctx context.Context, t *testing.T, src, listen, topic string) *dropRelay {
	t.Helper()
	r := &dropRelay{sub: zmq4.NewSub(ctx), topic: []byte(topic), ready: make(chan struct{}), done: make(chan struct{}),
		pub: zmq4.NewPub(ctx, zmq4.WithDialerRetry(10*time.Millisecond), zmq4.WithDialerMaxRetries(-1))}
	t.Cleanup(func() { _ = r.sub.Close(); _ = r.pub.Close(); <-r.done })
	if err := r.sub.Dial(src); err != nil {
		t.Fatal(err)
	}
	if err := r.sub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
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
	go r.run()
	return r
}

// Endpoint is the bound PUB endpoint (dial mode).
func (r *dropRelay) Endpoint() string { return "tcp://" + r.pub.Addr().String() }

func (r *dropRelay) run() {
	defer close(r.done)
	for {
		msg, err := r.sub.Recv()
		if err != nil {
			return
		}
		if len(msg.Frames) != 3 || len(msg.Frames[1]) != 8 {
			continue
		}
		if binary.BigEndian.Uint64(msg.Frames[1]) == 0 {
			r.dropped.Add(1)
			continue
		}
		if len(r.topic) > 0 {
			msg.Frames[0] = r.topic
		}
		_ = r.pub.SendMulti(zmq4.NewMsgFrom(msg.Frames...))
	}
}

// lateRun is the outcome of one run behind drop relays.
type lateRun struct {
	stop    replay.Stop
	results []*replay.Result
	dropped int64
}

// runBehindDropRelays replays n spaced kvWorkload requests through
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
	pubs, reps := f.KVEventEndpoints()
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
		relays[i] = startDropRelay(ctx, t, pubs[i], listenAt, topic)
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
		Source: &gatedSource{ready: ready, reqs: spaced(kvWorkload(n), 100*time.Millisecond)},
		Router: r, Queue: q, OnResult: func(r *replay.Result) { out.results = append(out.results, r) }},
		Backends: f.URLs(), Client: replay.NewClient(replay.ClientOptions{Stream: true, TokenExact: true}),
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
func hitRates(t *testing.T, rs []*replay.Result) (pred, server float64) {
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
// dial mode. Each stream notices, on its next batch, that it joined
// after batch 0, fetches it from the replica's replay socket, and the
// router's predicted hit rate ends within 1 point of the servers'.
func TestKVEventsFirstBatchDroppedReplayed(t *testing.T) {
	for _, listen := range []bool{true, false} {
		t.Run(map[bool]string{true: "listen", false: "dial"}[listen], func(t *testing.T) {
			run := runBehindDropRelays(t, 2, 40, listen, true, nil)
			if run.dropped != 2 {
				t.Fatalf("the relays dropped %d batches, want each replica's first", run.dropped)
			}
			pred, server := hitRates(t, run.results)
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
// server does not give, and every prefix stored after the loss is
// predicted as the server serves it.
func TestKVEventsFirstBatchDroppedNoReplay(t *testing.T) {
	run := runBehindDropRelays(t, 1, 16, true, false, policies.Params{"hashes": "tokens"})
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
		if r.Seq%4 != 0 { // not the first request's prefix group, whose blocks were in the dropped batch
			pred += r.PredictedHitTokens
			cached += r.CachedTokens
		}
	}
	if cached == 0 || pred != cached {
		t.Errorf("prefixes stored after the loss: predicted %d cached tokens, the server served %d", pred, cached)
	}
}
