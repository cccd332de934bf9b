package kvevents

import (
	"context"
	"time"
)

// pollStart asks the stream's replay socket, every StartPoll until the
// first live batch arrives, for the batches past those the stream has,
// and applies them. A publisher that dials a listener, or a PUB socket
// that has not yet seen the subscription, drops its first batches; the
// live stream would show the gap only with the publisher's next batch,
// and a server already warm from earlier traffic may publish nothing new
// for a long while. After quietPolls polls in a row with nothing new
// (2 s at the default StartPoll, longer than llm-d-inference-sim's 1 s
// between dials) the wait doubles up to 16 × StartPoll, so a stream that
// never goes live costs a connection every 1.6 s; a poll that fetches
// something starts over. It returns when ctx ends or the stream is live.
func (s *stream) pollStart(ctx context.Context) {
	if s.replay == "" || s.o.StartPoll < 0 {
		return
	}
	wait, quiet := s.o.StartPoll, 0
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		got, live := s.pollOnce(ctx)
		switch {
		case live:
			return
		case got > 0:
			wait, quiet = s.o.StartPoll, 0
		case quiet < quietPolls:
			quiet++
		default:
			wait = min(2*wait, 16*s.o.StartPoll)
		}
		t.Reset(wait)
	}
}

// quietPolls is how many empty polls pollStart makes before it backs off.
const quietPolls = 20

// pollOnce fetches and applies what the replay socket holds past the
// stream's last batch; it returns how many batches that was, and whether
// the stream has gone live (then it fetches nothing).
func (s *stream) pollOnce(ctx context.Context) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live {
		return 0, true
	}
	var from uint64
	if s.started {
		from = s.last + 1
	}
	got, first, last := s.replayRange(ctx, from, ^uint64(0))
	if got == 0 {
		return 0, false
	}
	// What the buffer no longer held was lost before the live stream was
	// up; from 0, batch 0 is not counted (the publisher may number from 1).
	lost := int64(min(first-from, 1<<62))
	if !s.started && first > 0 {
		lost = int64(min(first-1, 1<<62))
	}
	s.x.Note(s.b, func(st *Stats) {
		st.Replayed += got
		st.LostAtStart += lost
	})
	s.started, s.last = true, last
	return got, false
}
