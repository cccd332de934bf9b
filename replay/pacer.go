package replay

import (
	"time"

	"github.com/tracebench/tracebench/internal/pace"
)

// pacer wakes the scheduler at the next arrival time. A runtime timer
// alone fires up to about 1 ms late (the schedule lag every Request
// would carry into its TTFT), so the pacer's timer wakes pace.Fine early
// and a goroutine sleeps the rest precisely, while the scheduler keeps
// handling worker events.
type pacer struct {
	coarse *time.Timer
	fine   chan struct{}
	// pending is the arrival time a fine sleep is running for (zero: none).
	pending time.Time
}

func newPacer() *pacer {
	return &pacer{coarse: time.NewTimer(time.Hour), fine: make(chan struct{}, 1)}
}

// stop releases the timer.
func (p *pacer) stop() { p.coarse.Stop() }

// wait arms the pacer for wall time at and returns the channels to select
// on: coarse fires when the scheduler should call wait again, fine when at
// has come. Exactly one of them is non-nil.
func (p *pacer) wait(at time.Time) (coarse <-chan time.Time, fine <-chan struct{}) {
	if p.pending.Equal(at) {
		return nil, p.fine
	}
	if d := time.Until(at) - pace.Fine; d > 0 {
		p.coarse.Reset(d)
		return p.coarse.C, nil
	}
	p.coarse.Stop()
	p.pending = at
	go func() {
		pace.Sleep(time.Until(at))
		p.fine <- struct{}{}
	}()
	return nil, p.fine
}

// fired records that the fine sleep for the pending arrival ended.
func (p *pacer) fired() { p.pending = time.Time{} }
