package kvevents

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestPollBeforeLive: batches fetched by the start poll before the live
// socket is up are applied once; the live stream's first batch, if
// already fetched, is skipped rather than taken for a restart, and the
// next one continues the sequence.
func TestPollBeforeLive(t *testing.T) {
	p, _, rep := newTestPublisher(t)
	for i := range 4 {
		p.Publish(Batch{Events: []Event{stored(2, uint64(i+1))}})
	}
	waitFor(t, "buffered batches", func() bool { return len(p.since(0)) == 4 })
	x, _ := NewIndex(1, 2, 0)
	s := &stream{x: x, replay: rep, o: SubscriberOptions{}.withDefaults()}
	ctx := context.Background()
	if got, live := s.pollOnce(ctx); got != 4 || live {
		t.Fatalf("poll fetched %d batches (live %v), want the 4 buffered", got, live)
	}
	if got, _ := s.pollOnce(ctx); got != 0 {
		t.Errorf("second poll fetched %d batches, want none new", got)
	}
	s.handle(ctx, frames(t, 2, Batch{Events: []Event{stored(2, 3)}})) // fetched already
	s.handle(ctx, frames(t, 4, Batch{Events: []Event{stored(2, 5)}}))
	if _, live := s.pollOnce(ctx); !live {
		t.Error("poll after a live batch did not stop")
	}
	st := x.Stats()[0]
	if got := x.Match([]uint64{1, 2, 3, 4, 5}, nil)[0]; got != 5 {
		t.Errorf("match %d, want 5", got)
	}
	if st.Batches != 5 || st.Replayed != 4 || st.Restarts != 0 || st.Gaps != 0 || st.LostAtStart != 0 {
		t.Errorf("stats %+v: want 5 batches, 4 replayed, no restart, gap or loss", st)
	}
}

// TestPollCountsWhatTheBufferLost: a buffer that no longer holds the
// first batches leaves them lost at start (batch 0 aside, which a
// publisher numbering from 1 never sent).
func TestPollCountsWhatTheBufferLost(t *testing.T) {
	p, _, rep := newTestPublisher(t) // keeps 4 batches
	for i := range 7 {
		p.Publish(Batch{Events: []Event{stored(2, uint64(i+1))}})
	}
	waitFor(t, "buffered batches", func() bool { b := p.since(0); return len(b) == 4 && b[3].seq == 6 })
	x, _ := NewIndex(1, 2, 0)
	s := &stream{x: x, replay: rep, o: SubscriberOptions{}.withDefaults()}
	if got, _ := s.pollOnce(context.Background()); got != 4 {
		t.Fatalf("poll fetched %d batches, want 4", got)
	}
	if st := x.Stats()[0]; st.LostAtStart != 2 || st.Replayed != 4 {
		t.Errorf("lost at start %d replayed %d, want 2 (batches 1 and 2) and 4", st.LostAtStart, st.Replayed)
	}
}

// TestListenerPollsReplayBeforeFirstBatch: a publisher that dials the
// listener publishes before the listener is up, then goes quiet. The
// listener's start poll fetches those batches from its replay socket
// without waiting for a later one; each is applied once, and the topic's
// first live batch continues the same stream.
func TestListenerPollsReplayBeforeFirstBatch(t *testing.T) {
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return "tcp://" + ln.Addr().String()
	}
	listen, replay := free(), free()
	p, err := NewPublisher(listen, replay, PublisherOptions{Topic: "kv@127.0.0.1:8001@m", Connect: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range 3 {
		p.Publish(Batch{Events: []Event{stored(2, uint64(i+1))}})
	}
	waitFor(t, "buffered batches", func() bool { return len(p.since(0)) == 3 })
	x, _ := NewIndex(1, 2, 0)
	ctx, cancel := context.WithCancel(context.Background())
	l, err := Listen(ctx, x, listen, NewTopics([]string{"127.0.0.1:8001"}, []string{replay}),
		SubscriberOptions{StartPoll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); <-l.Done() }()
	waitFor(t, "the early batches", func() bool { return x.Match([]uint64{1, 2, 3}, nil)[0] == 3 })
	if l.Received() != 0 {
		t.Fatal("a batch sent before the listener was bound came over the live socket")
	}
	// Then more, one at a time, until the live socket has carried one.
	for i := uint64(4); l.Received() == 0; i++ {
		if i > 500 {
			t.Fatal("no batch came over the live socket")
		}
		p.Publish(Batch{Events: []Event{stored(2, i)}})
		waitFor(t, "batch applied", func() bool { return x.Stats()[0].Batches >= int64(i) })
	}
	st := x.Stats()[0]
	sent := int64(len(p.since(0)))
	if st.Batches != sent || st.Restarts != 0 || st.Lost != 0 || st.LostAtStart != 0 || st.Replayed < 3 {
		t.Errorf("stats %+v after %d batches sent: want each applied once, at least the first 3 replayed", st, sent)
	}
}

// TestFirstLiveAfterPollMissing: batches sent after the last poll and
// before the live socket was up, and no longer held for replay, are lost
// at start, not a gap of the live stream.
func TestFirstLiveAfterPollMissing(t *testing.T) {
	p, _, rep := newTestPublisher(t)
	for i := range 4 {
		p.Publish(Batch{Events: []Event{stored(2, uint64(i+1))}})
	}
	waitFor(t, "buffered batches", func() bool { return len(p.since(0)) == 4 })
	x, _ := NewIndex(1, 2, 0)
	s := &stream{x: x, replay: rep, o: SubscriberOptions{}.withDefaults()}
	ctx := context.Background()
	if got, _ := s.pollOnce(ctx); got != 4 {
		t.Fatalf("poll fetched %d batches, want 4", got)
	}
	s.handle(ctx, frames(t, 6, Batch{Events: []Event{stored(2, 7)}})) // 4 and 5 were never kept
	s.handle(ctx, frames(t, 8, Batch{Events: []Event{stored(2, 9)}})) // 7: a gap of the live stream
	st := x.Stats()[0]
	if st.LostAtStart != 2 || st.Gaps != 1 || st.Lost != 1 || st.Batches != 6 {
		t.Errorf("stats %+v: want 2 lost at start, then 1 gap of 1 lost batch, 6 batches", st)
	}
}
