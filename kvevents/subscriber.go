package kvevents

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
)

// SubscriberOptions configure Subscribe. Zero values take the defaults.
type SubscriberOptions struct {
	// Topic is the subscription prefix (default "", every topic).
	Topic string
	// DialTimeout bounds connecting to the endpoint (default 2 s); past
	// it the stream is marked unreachable.
	DialTimeout time.Duration
	// ReplayTimeout bounds one replay request (default 1 s).
	ReplayTimeout time.Duration
	// StartPoll is how often a stream with a replay endpoint asks it for
	// the batches it lacks until its first live batch arrives (default
	// 100 ms; after 20 empty polls in a row it doubles, up to 16 times
	// that; negative: never). See stream.pollStart.
	StartPoll time.Duration
}

// Subscriber follows one backend's event stream into an Index.
type Subscriber struct {
	stream
	endpoint string
	sub      zmq4.Socket
}

// stream is one publisher's sequence of batches for backend b: it checks
// sequence numbers, fills gaps from the publisher's replay socket and
// applies the batches. A dialled Subscriber has one; a Listener one per
// topic.
type stream struct {
	x      *Index
	b      int
	replay string
	o      SubscriberOptions

	mu      sync.Mutex // the live messages' goroutine and pollStart's
	started bool       // a batch was applied; last is its sequence number
	live    bool       // a batch came over the live socket
	last    uint64
}

// Subscribe connects to backend b's PUB endpoint (and replay endpoint,
// when not empty) and applies its batches to x until ctx ends; the
// returned channel closes when it has stopped. An endpoint that cannot be
// reached is recorded in b's Stats (Unreachable) and ends the Subscriber.
func Subscribe(ctx context.Context, x *Index, b int, endpoint, replay string, o SubscriberOptions) <-chan struct{} {
	s := &Subscriber{stream: stream{x: x, b: b, replay: replay, o: o.withDefaults()}, endpoint: endpoint}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.run(ctx)
	}()
	return done
}

// withDefaults fills the zero options.
func (o SubscriberOptions) withDefaults() SubscriberOptions {
	if o.DialTimeout <= 0 {
		o.DialTimeout = 2 * time.Second
	}
	if o.ReplayTimeout <= 0 {
		o.ReplayTimeout = time.Second
	}
	if o.StartPoll == 0 {
		o.StartPoll = 100 * time.Millisecond
	}
	return o
}

func (s *Subscriber) run(ctx context.Context) {
	retry := 100 * time.Millisecond
	s.sub = zmq4.NewSub(ctx, zmq4.WithDialerRetry(retry),
		zmq4.WithDialerMaxRetries(max(1, int(s.o.DialTimeout/retry))), zmq4.WithAutomaticReconnect(true))
	defer s.sub.Close()
	if err := s.sub.Dial(s.endpoint); err != nil {
		s.x.Note(s.b, func(st *Stats) { st.Unreachable = fmt.Sprintf("%s: %v", s.endpoint, err) })
		return
	}
	if err := s.sub.SetOption(zmq4.OptionSubscribe, s.o.Topic); err != nil {
		s.x.Note(s.b, func(st *Stats) { st.Unreachable = fmt.Sprintf("%s: subscribe: %v", s.endpoint, err) })
		return
	}
	s.x.Note(s.b, func(st *Stats) { st.Subscribed, st.ReplayEndpoint = true, s.replay })
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		s.pollStart(ctx)
	}()
	defer func() { <-polled }()
	receive(s.sub, func(frames [][]byte) { s.handle(ctx, frames) })
}

// handle checks one [topic, seq, payload] message's sequence number,
// replays a gap, and applies the batch.
func (s *stream) handle(ctx context.Context, frames [][]byte) {
	if len(frames) != 3 || len(frames[1]) != 8 {
		s.malformed(fmt.Sprintf("message of %d frames, want [topic, seq(8 bytes), payload]", len(frames)))
		return
	}
	seq := binary.BigEndian.Uint64(frames[1])
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.live
	s.live = true
	switch {
	case !s.started && seq > 0:
		s.catchUp(ctx, seq)
	case !s.started:
	case seq == s.last+1:
	case seq == s.last: // a repeated batch (delivery is at least once): already applied
		return
	case seq < s.last && first: // fetched by pollStart before the live socket was up
		return
	case seq < s.last:
		s.x.Restart(s.b)
	default:
		s.fill(ctx, seq, first)
	}
	s.started, s.last = true, seq
	s.apply(frames[2])
}

// fill asks the replay socket for the batches between s.last and seq,
// applies them in order and counts the ones it could not get: lost, or,
// before the first live batch (atStart, after pollStart), lost at start.
func (s *stream) fill(ctx context.Context, seq uint64, atStart bool) {
	missing := int64(min(seq-s.last-1, math.MaxInt64))
	got, _, _ := s.replayRange(ctx, s.last+1, seq)
	s.x.Note(s.b, func(st *Stats) {
		st.Replayed += got
		if atStart {
			st.LostAtStart += missing - got
			return
		}
		st.Gaps++
		st.Lost += missing - got
	})
}

// catchUp fetches, through the replay socket, what the publisher sent
// before this stream joined (its first batch is seq): a publisher that
// dials a listener, or a subscriber that connects late, misses the first
// batches, and later blocks name them as parents. What replay cannot
// supply is counted lost at start (see Stats.LostAtStart); the blocks
// that later name those batches' blocks as parents then start chains of
// their own in the index (Stats.Orphans).
func (s *stream) catchUp(ctx context.Context, seq uint64) {
	got, first, _ := s.replayRange(ctx, 0, seq)
	lost := lostAtStart(seq, got, first)
	if got > 0 || lost > 0 {
		s.x.Note(s.b, func(st *Stats) {
			st.Replayed += got
			st.LostAtStart += lost
		})
	}
}

// lostAtStart returns how many of the batches before seq were neither
// seen nor replayed, given got replayed from first on: batches 1 to
// seq−1, and batch 0 too when the replay shows the publisher numbers
// from 0 (vLLM numbers from 0, llm-d-inference-sim from 1).
func lostAtStart(seq uint64, got int64, first uint64) int64 {
	before := seq - 1 // seq > 0
	if got > 0 && first == 0 {
		before = seq
	}
	if before > math.MaxInt64 {
		before = math.MaxInt64
	}
	return max(0, int64(before)-got)
}

// replayRange requests batches [from, to) and applies them; it returns
// how many it applied and the sequence numbers of the first and the last.
func (s *stream) replayRange(ctx context.Context, from, to uint64) (got int64, first, last uint64) {
	if s.replay == "" {
		return 0, 0, 0
	}
	rctx, cancel := context.WithTimeout(ctx, s.o.ReplayTimeout)
	defer cancel()
	d := zmq4.NewDealer(rctx, zmq4.WithDialerMaxRetries(1))
	defer d.Close()
	if d.Dial(s.replay) != nil {
		return 0, 0, 0
	}
	var sb [8]byte
	binary.BigEndian.PutUint64(sb[:], from)
	if d.SendMulti(zmq4.NewMsgFrom([]byte{}, sb[:])) != nil {
		return 0, 0, 0
	}
	next := from
	for {
		msg, err := d.Recv()
		if err != nil {
			return got, first, last
		}
		rs, payload, ok := replayAnswer(msg.Frames)
		if !ok || rs == ^uint64(0) || rs >= to {
			return got, first, last
		}
		if rs >= next { // in order; what the buffer no longer holds is skipped
			if got == 0 {
				first = rs
			}
			s.apply(payload)
			got++
			next, last = rs+1, rs
		}
	}
}

// replayAnswer reads one replay answer: vLLM's [empty, seq, payload], or
// llm-d-inference-sim's [empty, topic, seq, payload].
func replayAnswer(frames [][]byte) (uint64, []byte, bool) {
	switch {
	case len(frames) == 3 && len(frames[1]) == 8:
		return binary.BigEndian.Uint64(frames[1]), frames[2], true
	case len(frames) == 4 && len(frames[2]) == 8:
		return binary.BigEndian.Uint64(frames[2]), frames[3], true
	}
	return 0, nil, false
}

// apply decodes a payload into the index, counting a malformed one.
func (s *stream) apply(payload []byte) {
	d, err := Decode(payload)
	if err != nil {
		s.malformed(err.Error())
		return
	}
	s.x.Apply(s.b, d)
}

func (s *stream) malformed(msg string) {
	s.x.Note(s.b, func(st *Stats) {
		st.Malformed++
		st.problem(msg)
	})
}
