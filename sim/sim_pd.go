package sim

import (
	"cmp"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// Phases of a disaggregated simulated Request (simPD.phase), also the
// suffix of its engine request ids.
const (
	phasePrefill = "p"
	phaseDecode  = "d"
)

// simPD is a disaggregated Request's phase and its decode Backend.
type simPD struct {
	phase  string
	decode int
}

// dispatchPrefill sends d's prefill (one token) to its prefill engine.
func (s *simulator) dispatchPrefill(d replay.Dispatch, res *results.Result) {
	res.PD = &results.PrefillPhase{Backend: d.Prefill.Backend, Protocol: results.PDSim, Sent: s.now}
	s.addToEngine(d.Req, res, d.Prefill.Backend, 0, &simPD{phase: phasePrefill, decode: d.Backend})
}

// applyPrefill applies an engine event of a prefill phase: its cached
// tokens, and at its end the transfer to the decode engine.
func (s *simulator) applyPrefill(ev *engine.Event, sr *simReq) error {
	res := sr.res
	if ev.Admitted {
		res.PD.CachedTokens = ev.CachedTokens
	}
	if !ev.Finished {
		return nil
	}
	s.live.del(ev.Tag)
	res.PD.Done = s.now + s.o.Engines[res.PD.Backend].RequestOverhead
	if ev.Reason == engine.FinishAbort {
		res.PD.ErrClass, res.PD.Err = results.ErrCanceled, "prefill aborted by the engine"
		res.Done, res.ErrClass, res.Err = res.PD.Done, results.ErrCanceled, "prefill aborted by the engine"
		s.d.Done(s.now, sr.req, res)
		s.emit(res)
		return nil
	}
	s.d.PrefillDone(s.now, sr.req, res)
	dec := sr.pd.decode
	tr := s.o.Engines[dec].KVTransfer.Time(sr.promptLen)
	res.PD.Transfer, res.PD.TransferKnown = tr, true
	s.transfers.Push(simTransfer{at: res.PD.Done + tr, sr: &simReq{req: sr.req, res: res, promptLen: sr.promptLen,
		pd: &simPD{phase: phaseDecode, decode: dec}}})
	return nil
}

// startDecode adds the decode whose transfer ends first to its engine,
// its transferred prompt tokens taken as computed.
func (s *simulator) startDecode() {
	t, _ := s.transfers.Pop()
	s.now = max(s.now, t.at)
	s.addToEngine(t.sr.req, t.sr.res, t.sr.pd.decode, t.sr.promptLen, t.sr.pd)
}

// simTransfer is a decode waiting for its KV transfer to end at at.
type simTransfer struct {
	at time.Duration
	sr *simReq
}

// Before orders transfers by end time, then sequence.
func (t simTransfer) Before(o simTransfer) bool {
	return cmp.Or(cmp.Compare(t.at, o.at), cmp.Compare(t.sr.res.Seq, o.sr.res.Seq)) < 0
}

// nextTransfer returns when the first transfer ends (ok false: none
// pending).
func (s *simulator) nextTransfer() (time.Duration, bool) {
	t, ok := s.transfers.Peek()
	return t.at, ok
}
