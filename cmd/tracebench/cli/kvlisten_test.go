package cli

import (
	"context"
	"encoding/binary"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/mockserver"
)

// freeTCPEndpoint returns a tcp:// endpoint on a loopback port that was
// free a moment ago (for a listener bound later by the code under test).
func freeTCPEndpoint(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "tcp://" + addr
}

// TestReplayListenModeMockEndToEnd wires the mock fleet as llm-d wires
// vLLM: each replica's publisher dials the replay's one bound SUB socket
// with topic kv@<host>:<port>@<model>, in each encoding. Every batch is
// decoded, none is malformed or on an unknown topic, each backend's
// blocks come from its own topic, and the router predicts the servers'
// hits.
func TestReplayListenModeMockEndToEnd(t *testing.T) {
	for _, enc := range []kvevents.Encoding{kvevents.EncodingArray, kvevents.EncodingMap} {
		t.Run(enc.String(), func(t *testing.T) {
			listen := freeTCPEndpoint(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			f, err := mockserver.StartFleet(ctx, mockserver.FleetConfig{Replicas: 2, Host: "127.0.0.1",
				Options: mockserver.Options{TimeScale: 0.05}, KVEvents: true, KVConnect: listen, KVEncoding: enc})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			urls := f.URLs()
			out, s := simReplay(t, "replay", "--workload", "shared-prefix", "--max-requests", "40",
				"--target", urls[0], "--target", urls[1], "--policy", "precise-prefix", "--kv-events-listen", listen)
			if len(s.KVEvents) != 2 {
				t.Fatalf("KV event rows %+v, want 2", s.KVEvents)
			}
			for _, r := range s.KVEvents {
				if r.Events == 0 || r.Blocks == 0 || r.Malformed != 0 || r.Unreachable {
					t.Errorf("backend %d: %+v, want events indexed and nothing malformed", r.Backend, r)
				}
			}
			if s.Stop.Extra["kv_events_unknown_topic_batches"] != 0 || len(s.KVNotes) != 0 {
				t.Errorf("unknown topic batches %v, notes %q", s.Stop.Extra["kv_events_unknown_topic_batches"], s.KVNotes)
			}
			if s.HitRate.Server < 0.3 || math.Abs(s.HitRate.Predicted-s.HitRate.Server) > 0.05 {
				t.Errorf("hit server %.3f predicted %.3f: want shared prefixes hit and predicted within 5 points (%s)",
					s.HitRate.Server, s.HitRate.Predicted, out)
			}
		})
	}
}

// TestReplayListenModeDiagnoses runs listen mode against two mock
// servers that publish nothing, while a foreign publisher dials the
// listener: on backend 0's topic with payloads that do not decode, and on
// a topic of no backend. Backend 0 is diagnosed undecodable with the
// first error, backend 1 reachable but without a batch on its topic, and
// the stranger topic is counted.
func TestReplayListenModeDiagnoses(t *testing.T) {
	listen := freeTCPEndpoint(t)
	urls := startTestFleet(t, "").URLs()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pub := zmq4.NewPub(ctx, zmq4.WithDialerRetry(20*time.Millisecond), zmq4.WithDialerMaxRetries(-1))
	defer pub.Close()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		if pub.Dial(listen) != nil {
			return
		}
		topic0 := "kv@" + strings.TrimPrefix(urls[0], "http://") + "@m"
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for seq := uint64(0); seq < 3000; seq++ {
			var sb [8]byte
			binary.BigEndian.PutUint64(sb[:], seq)
			_ = pub.SendMulti(zmq4.NewMsgFrom([]byte(topic0), sb[:], []byte{0xc1}))
			_ = pub.SendMulti(zmq4.NewMsgFrom([]byte("stranger"), sb[:], []byte{0x90}))
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	_, s := simReplay(t, "replay", "--workload", "shared-prefix", "--max-requests", "20", "--rate", "20",
		"--target", urls[0], "--target", urls[1], "--policy", "precise-prefix", "--kv-events-listen", listen)
	cancel()
	<-sent
	want := []string{"backend 0 published ", " batches that could not be decoded (first error: ",
		"backend 1: reachable, but no batch for this backend's topic", `on topic "stranger" went to no backend`}
	all := strings.Join(s.KVNotes, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("notes lack %q:\n%s", w, all)
		}
	}
	if strings.Count(strings.Join(s.Warnings, "\n"), "KV events: ") != len(s.KVNotes) {
		t.Errorf("warnings %q: want one per note", s.Warnings)
	}
}
