package sim

import (
	"strconv"
	"time"

	"github.com/tracebench/tracebench/results"
)

// Cut makes a simulated run end the way a measured one did, so that a
// prediction compares like with like: the client's first-byte timeout,
// and a run stopped from outside.
type Cut struct {
	// FirstByteTimeout gives up a Request that has no first token this
	// long after it was sent, as the live client's first-byte timeout
	// does: its Result is a timeout, and its engine is told the client is
	// gone (engine.Engine.ClientGone: a server that had taken it in
	// cancels it; one whose HTTP workers it had not reached still admits
	// it and pays for it). 0: never.
	FirstByteTimeout time.Duration
	// StopAt ends the run at this virtual time: nothing more is sent and
	// the Requests in flight finish as canceled with what they had, as a
	// live run's grace period ending cancels them. 0: run to the end.
	StopAt time.Duration
}

// deadline is one Request's first-byte deadline.
type deadline struct {
	at       time.Duration
	tag, seq int64
}

// Before orders deadlines by time alone: equal ones leave the heap in the
// order its pushes and pops make, the same on every run.
func (d deadline) Before(o deadline) bool { return d.at < o.at }

// watch arms sr's first-byte deadline when the cut has one.
func (s *simulator) watch(sr *simReq, tag int64) {
	if t := s.o.Cut.FirstByteTimeout; t > 0 {
		s.deadlines.Push(deadline{at: sr.res.Sent + t, tag: tag, seq: sr.res.Seq})
	}
}

// nextCut returns the time of the next cut event (a first-byte deadline
// or the stop) and whether there is one.
func (s *simulator) nextCut() (time.Duration, bool) {
	t, ok := s.o.Cut.StopAt, s.o.Cut.StopAt > 0
	if d, armed := s.deadlines.Peek(); armed && (!ok || d.at < t) {
		t, ok = d.at, true
	}
	return t, ok
}

// cut handles the cut event at t; it reports true when the run stops.
func (s *simulator) cut(t time.Duration) bool {
	s.now = max(s.now, t)
	if d, ok := s.deadlines.Peek(); ok && d.at == t {
		s.deadlines.Pop()
		s.expire(d)
		return false
	}
	s.stopAll()
	return true
}

// expire gives up the Request of d if it still has no first token.
func (s *simulator) expire(d deadline) {
	sr := s.live.get(d.tag)
	if sr == nil || sr.gone || sr.res.Seq != d.seq || sr.res.FirstToken != 0 {
		return
	}
	sr.gone = true
	res := sr.res
	res.Done, res.ErrClass = s.now, results.ErrTimeout
	res.Err = "no first token within the first-byte timeout of " + s.o.Cut.FirstByteTimeout.String() + " (simulated client)"
	s.bs[res.Backend].e.ClientGone(strconv.FormatInt(res.Seq, 10))
	s.d.Done(s.now, sr.req, res)
	s.emit(res)
}

// stopAll finishes every Request in flight as canceled at now.
func (s *simulator) stopAll() {
	for _, sr := range s.live.slots {
		if sr == nil || sr.gone || s.halt {
			continue
		}
		sr.gone = true
		sr.stats.Close()
		res := sr.res
		res.Done, res.ErrClass = s.now, results.ErrCanceled
		res.Err = "the run stopped at " + s.now.String() + " (the measured run's stop, simulated)"
		s.d.Done(s.now, sr.req, res)
		s.emit(res)
	}
}
