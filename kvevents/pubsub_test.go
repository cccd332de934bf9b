package kvevents

import (
	"context"
	"encoding/binary"
	"net"
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing after 5 s (loopback ZeroMQ
// delivers asynchronously).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

func newTestPublisher(t *testing.T) (*Publisher, string, string) {
	t.Helper()
	p, err := NewPublisher("tcp://127.0.0.1:0", "tcp://127.0.0.1:0", PublisherOptions{BufferSteps: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	pub, rep := p.Endpoints()
	return p, pub, rep
}

func TestPublishSubscribeLoopback(t *testing.T) {
	p, pub, rep := newTestPublisher(t)
	x, _ := NewIndex(1, 2, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := Subscribe(ctx, x, 0, pub, rep, SubscriberOptions{})
	defer func() { cancel(); <-done }()
	waitFor(t, "subscription", func() bool { return x.Stats()[0].Subscribed })
	// PUB drops messages until the subscription reaches it: publish until
	// one arrives, then one more batch that must arrive in order.
	waitFor(t, "first batch", func() bool {
		p.Publish(Batch{Events: []Event{stored(2, 1)}})
		time.Sleep(10 * time.Millisecond)
		return x.Stats()[0].Batches > 0
	})
	p.Publish(Batch{Events: []Event{stored(2, 2), {Kind: Removed, Hashes: []uint64{1}}}})
	waitFor(t, "hash 2", func() bool { return x.Match([]uint64{2}, nil)[0] == 1 })
	if x.Match([]uint64{1}, nil)[0] != 0 {
		t.Error("removed block still indexed")
	}
}

// frames builds a [topic, seq, payload] message.
func frames(t *testing.T, seq uint64, b Batch) [][]byte {
	t.Helper()
	p, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	var sb [8]byte
	binary.BigEndian.PutUint64(sb[:], seq)
	return [][]byte{nil, sb[:], p}
}

func TestSubscriberSequence(t *testing.T) {
	tests := []struct {
		name     string
		replay   bool
		seqs     []uint64
		match    int // leading blocks of 1..4 held at the end
		gaps     int64
		replayed int64
		lost     int64
		restarts int64
		atStart  int64 // lost at start
	}{
		{"in order", true, []uint64{0, 1, 2, 3}, 4, 0, 0, 0, 0, 0},
		{"gap replayed", true, []uint64{0, 3}, 4, 1, 2, 0, 0, 0},
		{"gap without replay", false, []uint64{0, 3}, 1, 1, 0, 2, 0, 0},
		{"gap partly replayed", true, []uint64{0, 9}, 4, 1, 3, 5, 0, 0},
		{"sequence reset", true, []uint64{0, 1, 2, 0}, 1, 0, 0, 0, 1, 0},
		{"repeated batch ignored", true, []uint64{0, 1, 1, 2}, 3, 0, 0, 0, 0, 0},
		{"joined late: earlier batches replayed", true, []uint64{2, 3}, 4, 0, 2, 0, 0, 0},
		// The buffer holds batches 0..3: 4 and 5 are lost at start.
		{"joined late: buffer short", true, []uint64{6, 7}, 4, 0, 4, 0, 0, 2},
		// Without replay batch 0 is not counted: the publisher may number from 1.
		{"joined late without replay", false, []uint64{2, 3}, 0, 0, 0, 0, 0, 1},
		{"first batch 1 without replay", false, []uint64{1, 2}, 0, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, rep := newTestPublisher(t)
			// The publisher's buffer holds batches 0..3 storing blocks 1..4.
			for i := range 4 {
				p.Publish(Batch{Events: []Event{stored(2, uint64(i+1))}})
			}
			waitFor(t, "buffered batches", func() bool { return len(p.since(0)) == 4 })
			x, _ := NewIndex(1, 2, 0)
			s := &stream{x: x, o: SubscriberOptions{ReplayTimeout: time.Second}}
			if tt.replay {
				s.replay = rep
			}
			for _, seq := range tt.seqs {
				id := uint64(seq + 1)
				if seq >= 4 {
					id = 1
				}
				s.handle(context.Background(), frames(t, seq, Batch{Events: []Event{stored(2, id)}}))
			}
			st := x.Stats()[0]
			if got := x.Match([]uint64{1, 2, 3, 4}, nil)[0]; got != tt.match {
				t.Errorf("match %d, want %d", got, tt.match)
			}
			if st.Gaps != tt.gaps || st.Replayed != tt.replayed || st.Lost != tt.lost || st.Restarts != tt.restarts ||
				st.LostAtStart != tt.atStart {
				t.Errorf("gaps %d replayed %d lost %d restarts %d lost at start %d, want %d %d %d %d %d",
					st.Gaps, st.Replayed, st.Lost, st.Restarts, st.LostAtStart,
					tt.gaps, tt.replayed, tt.lost, tt.restarts, tt.atStart)
			}
		})
	}
}

func TestSubscriberBadInput(t *testing.T) {
	x, _ := NewIndex(1, 2, 0)
	s := &stream{x: x}
	ctx := context.Background()
	s.handle(ctx, [][]byte{nil, {1}})                     // two frames
	s.handle(ctx, [][]byte{nil, make([]byte, 8), {0xc1}}) // bad payload
	s.handle(ctx, frames(t, 1, Batch{Events: []Event{stored(4, 1)}}))
	st := x.Stats()[0]
	if st.Malformed != 2 || st.BlockSizeMismatch != 1 || st.FirstProblem == "" {
		t.Errorf("malformed %d mismatch %d problem %q, want 2, 1 and a description",
			st.Malformed, st.BlockSizeMismatch, st.FirstProblem)
	}
}

func TestSubscribeUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there any more
	x, _ := NewIndex(1, 2, 0)
	<-Subscribe(context.Background(), x, 0, "tcp://"+addr, "", SubscriberOptions{DialTimeout: 300 * time.Millisecond})
	if st := x.Stats()[0]; st.Unreachable == "" || st.Subscribed {
		t.Errorf("stats %+v, want unreachable", st)
	}
}

func TestPublishAfterClose(t *testing.T) {
	p, err := NewPublisher("tcp://127.0.0.1:0", "", PublisherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p.Publish(Batch{})
	if p.Dropped() != 1 || p.Close() != nil {
		t.Errorf("dropped %d after close, want 1 and a second Close to be a no-op", p.Dropped())
	}
}

// TestGapReplayedOverTheWire loses one batch on the PUB socket (it is
// numbered and kept for replay but never sent) and checks that a live
// Subscriber notices the gap and fetches it from the replay socket.
func TestGapReplayedOverTheWire(t *testing.T) {
	p, pub, rep := newTestPublisher(t)
	x, _ := NewIndex(1, 2, 0)
	ctx, cancel := context.WithCancel(context.Background())
	// No start poll: it could fetch the unsent batch before the live
	// stream shows the gap.
	done := Subscribe(ctx, x, 0, pub, rep, SubscriberOptions{StartPoll: -1})
	defer func() { cancel(); <-done }()
	waitFor(t, "first batch", func() bool {
		p.Publish(Batch{Events: []Event{stored(2, 1)}})
		time.Sleep(10 * time.Millisecond)
		return x.Stats()[0].Batches > 0
	})
	waitFor(t, "publisher idle", func() bool { return len(p.queue) == 0 })
	lost, err := Encode(Batch{Events: []Event{stored(2, 2)}})
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.keep(sentBatch{seq: p.seq, payload: lost}) // numbered and kept, never published
	p.seq++
	p.mu.Unlock()
	p.Publish(Batch{Events: []Event{stored(2, 3)}})
	waitFor(t, "replayed batch", func() bool { return x.Match([]uint64{2, 3}, nil)[0] == 2 })
	// Batches published before the subscription reached the publisher are
	// fetched on joining and count as replayed too.
	if s := x.Stats()[0]; s.Gaps != 1 || s.Replayed < 1 || s.Lost != 0 {
		t.Errorf("gaps %d replayed %d lost %d, want 1, at least 1, 0", s.Gaps, s.Replayed, s.Lost)
	}
}

func TestLostAtStart(t *testing.T) {
	for _, tt := range []struct {
		seq   uint64
		got   int64
		first uint64
		want  int64
	}{
		{1, 0, 0, 0}, // batch 0 may never have existed
		{5, 0, 0, 4}, // batches 1..4
		{5, 5, 0, 0}, // 0..4 replayed: numbered from 0
		{5, 3, 0, 2}, // 0..2 replayed, 3 and 4 lost
		{5, 4, 1, 0}, // 1..4 replayed: numbered from 1
		{5, 2, 3, 2}, // 3..4 replayed, 1 and 2 lost
		{1 << 63, 0, 0, 1<<63 - 1},
		{^uint64(0), 0, 0, 1<<63 - 1}, // a wild sequence number stays a count
	} {
		if got := lostAtStart(tt.seq, tt.got, tt.first); got != tt.want {
			t.Errorf("lostAtStart(%d, %d, %d) = %d, want %d", tt.seq, tt.got, tt.first, got, tt.want)
		}
	}
}
