package calibrate

import (
	"fmt"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// simTimes is what an engine replay gives one request: when it was
// placed on a slot (its prompt batches could start), its first token
// and last token times (0: none), and the tokens the slot-switch save
// copied when it took its slot (0: none).
type simTimes struct {
	placed, first, done time.Duration
	saved               int
}

// replayOn runs the set's requests through an engine of cfg at their
// measured sent times, and returns each request's times. A request the
// client cut (canceled, timed out) is handed to ClientGone at its end, as
// the server saw its connection close. The engine is deterministic when
// cfg's jitter is 0.
func replayOn(cfg engine.Config, set *replaySet) ([]simTimes, error) {
	e, err := engine.New(cfg)
	if err != nil {
		return nil, err
	}
	return runSet(e, set)
}

// runSet runs the set's requests through e until it is idle (see
// replayOn).
func runSet(e *engine.Engine, set *replaySet) ([]simTimes, error) {
	out := make([]simTimes, len(set.reqs))
	cuts := cutOrder(set)
	var now time.Duration
	next, nextCut := 0, 0
	for next < len(set.reqs) || !e.Idle() {
		for next < len(set.reqs) && set.reqs[next].sent <= now {
			// A request the engine refuses keeps no times, as the server
			// would have refused it.
			_ = addSent(e, set.reqs[next], next)
			next++
		}
		for nextCut < len(cuts) && set.reqs[cuts[nextCut]].end <= now {
			e.ClientGone(strconv.Itoa(cuts[nextCut]))
			nextCut++
		}
		if e.Idle() {
			if next < len(set.reqs) {
				now = set.reqs[next].sent
			}
			continue
		}
		st := e.Step(now)
		if st.Duration <= 0 && len(st.Events) == 0 {
			return nil, fmt.Errorf("calibrate: engine replay stuck at %v", now)
		}
		placed := st.Start // placed in a step that computes: its prompt starts there
		if st.PrefillTokens == 0 && st.DecodeSeqs == 0 {
			placed = st.End() // a step of slot placements alone: the prompt starts after it
		}
		now = st.End()
		for _, ev := range st.Events {
			i := int(ev.Tag)
			if ev.Admitted {
				out[i].placed, out[i].saved = placed, ev.SlotSaved
			}
			if ev.First {
				out[i].first = now
			}
			if ev.Finished {
				out[i].done = now
			}
		}
	}
	return out, nil
}

// cutOrder lists the cut requests' indices by end time.
func cutOrder(set *replaySet) []int {
	var cuts []int
	for i, q := range set.reqs {
		if !q.ok {
			cuts = append(cuts, i)
		}
	}
	sortBy(cuts, func(i int) time.Duration { return set.reqs[i].end })
	return cuts
}

// addSent adds request i of the set to the engine.
func addSent(e *engine.Engine, q sentReq, i int) error {
	out := max(q.out, 1)
	if !q.ok {
		out = max(out, e.Config().MaxModelLen) // generates until cut
		out = min(out, e.Config().MaxModelLen-len(q.prompt))
	}
	if out < 1 {
		return fmt.Errorf("no room to generate")
	}
	return e.Add(q.sent, &engine.Request{ID: strconv.Itoa(i), Tag: int64(i), Prompt: q.prompt,
		MaxTokens: out, MinTokens: out, IgnoreEOS: true, Slot: q.slot, RanOn: q.ranOn})
}
