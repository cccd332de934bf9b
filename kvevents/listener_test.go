package kvevents

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestTopicsLookup(t *testing.T) {
	tp := NewTopics([]string{"127.0.0.1:8001", "localhost:8002", "10.0.0.5:8000", "10.0.0.5:8001"},
		[]string{"tcp://127.0.0.1:9001", "", "", ""})
	if err := tp.Map("vllm-a", 2); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		topic  string
		want   int
		replay string
		err    string
	}{
		{"kv@127.0.0.1:8001@tiny", 0, "tcp://127.0.0.1:9001", ""},
		{"kv@127.0.0.1:8002@tiny", 1, "", ""}, // localhost is 127.0.0.1
		{"kv@127.0.0.1@tiny", 0, "", "backends [0 1] share"},
		{"kv@10.0.0.5@m", 0, "", "backends [2 3] share"},
		{"kv@10.0.0.6:8000@m", 0, "", "no backend's host:port"},
		{"vllm-a", 2, "", ""},
		{"", 0, "", "mapped to no backend"},
		{"kv@@m", 0, "", "mapped to no backend"},
	}
	for _, tt := range tests {
		b, rep, err := tp.Lookup(tt.topic)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Lookup(%q) err = %v, want one containing %q", tt.topic, err, tt.err)
			}
			continue
		}
		if err != nil || b != tt.want || rep != tt.replay {
			t.Errorf("Lookup(%q) = %d, %q, %v; want %d, %q", tt.topic, b, rep, err, tt.want, tt.replay)
		}
	}
	if err := tp.Map("vllm-a", 3); err == nil || !strings.Contains(err.Error(), `"vllm-a" is mapped to backend 2 and backend 3`) {
		t.Errorf("collision: err = %v", err)
	}
	if err := tp.Map("vllm-a", 2); err != nil {
		t.Errorf("mapping a topic twice to one backend: %v", err)
	}
	if err := tp.Map("x", 4); err == nil {
		t.Error("backend out of range accepted")
	}
	one := NewTopics([]string{"127.0.0.1:8000"}, nil)
	if b, _, err := one.Lookup(""); err != nil || b != 0 {
		t.Errorf("single backend, empty topic: %d %v", b, err)
	}
}

// TestListenerRoutesByTopic has three publishers dial one Listener: two
// with llm-d topics of the two backends (one in each encoding) and one
// on a topic of no backend. Each backend gets its own publisher's
// blocks; the stranger is counted by topic.
func TestListenerRoutesByTopic(t *testing.T) {
	x, _ := NewIndex(2, 2, 0)
	ctx, cancel := context.WithCancel(context.Background())
	tp := NewTopics([]string{"127.0.0.1:8001", "127.0.0.1:8002"}, nil)
	l, err := Listen(ctx, x, "tcp://127.0.0.1:0", tp, SubscriberOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); <-l.Done() }()
	pubs := map[string]*Publisher{}
	for _, c := range []struct {
		topic string
		enc   Encoding
	}{{"kv@127.0.0.1:8001@tiny", EncodingArray}, {"kv@127.0.0.1:8002@tiny", EncodingMap}, {"kv@10.1.1.1:1@x", EncodingArray}} {
		p, err := NewPublisher(l.Endpoint(), "", PublisherOptions{Topic: c.topic, Connect: true, Encoding: c.enc})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		pubs[c.topic] = p
	}
	// PUB drops messages until the connection is up: publish until both
	// backends have a batch and the stranger was heard.
	waitFor(t, "every publisher", func() bool {
		pubs["kv@127.0.0.1:8001@tiny"].Publish(Batch{Events: []Event{stored(2, 1)}})
		pubs["kv@127.0.0.1:8002@tiny"].Publish(Batch{Events: []Event{stored(2, 2)}})
		pubs["kv@10.1.1.1:1@x"].Publish(Batch{Events: []Event{stored(2, 3)}})
		time.Sleep(10 * time.Millisecond)
		st := x.Stats()
		return st[0].Batches > 0 && st[1].Batches > 0 && len(l.Unknown()) > 0
	})
	if m := x.Match([]uint64{1}, nil); m[0] != 1 || m[1] != 0 {
		t.Errorf("block 1 held by %v, want backend 0 only", m)
	}
	if m := x.Match([]uint64{2}, nil); m[0] != 0 || m[1] != 1 {
		t.Errorf("block 2 held by %v, want backend 1 only", m)
	}
	if m := x.Match([]uint64{3}, nil); m[0] != 0 || m[1] != 0 {
		t.Errorf("block 3 (unknown topic) held by %v", m)
	}
	st := x.Stats()
	if st[0].Malformed+st[1].Malformed != 0 || st[0].Topics[0] != "kv@127.0.0.1:8001@tiny" {
		t.Errorf("stats %+v", st)
	}
	u := l.Unknown()
	if len(u) != 1 || u[0].Topic != "kv@10.1.1.1:1@x" || u[0].Messages == 0 || !strings.Contains(u[0].Why, "no backend") {
		t.Errorf("unknown topics %+v", u)
	}
}

// TestListenerGapsPerPublisher feeds one Listener two publishers'
// interleaved sequences: each topic keeps its own sequence, so only the
// real hole in the second one is a gap, filled from its replay socket.
func TestListenerGapsPerPublisher(t *testing.T) {
	p, _, rep := newTestPublisher(t)
	for i := range 4 {
		p.Publish(Batch{Events: []Event{stored(2, uint64(10+i))}})
	}
	waitFor(t, "buffered batches", func() bool { return len(p.since(0)) == 4 })
	x, _ := NewIndex(2, 2, 0)
	tp := NewTopics([]string{"127.0.0.1:1", "127.0.0.1:2"}, []string{"", rep})
	l := &Listener{x: x, topics: tp, o: SubscriberOptions{}.withDefaults(), streams: map[string]*stream{},
		unknown: map[string]*TopicCount{}}
	send := func(topic string, seq, block uint64) {
		f := frames(t, seq, Batch{Events: []Event{stored(2, block)}})
		f[0] = []byte(topic)
		l.route(context.Background(), f)
	}
	a, b := "kv@127.0.0.1:1@m", "kv@127.0.0.1:2@m"
	send(a, 0, 1)
	send(b, 0, 10)
	send(a, 1, 2)
	send(b, 3, 13) // 1 and 2 missing: replayed
	send(a, 2, 3)
	st := x.Stats()
	if st[0].Gaps != 0 || st[1].Gaps != 1 || st[1].Replayed != 2 || st[1].Lost != 0 {
		t.Errorf("backend 0 gaps %d; backend 1 gaps %d replayed %d lost %d; want 0; 1 2 0",
			st[0].Gaps, st[1].Gaps, st[1].Replayed, st[1].Lost)
	}
	if m := x.Match([]uint64{10, 11, 12, 13}, nil); m[1] != 4 {
		t.Errorf("backend 1 holds %d of 4 blocks", m[1])
	}
}
