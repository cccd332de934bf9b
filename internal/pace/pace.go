package pace

import (
	"context"
	"time"
)

// Fine is how much of a wait Until leaves to the precise sleep at its
// end: more than the poller's 1 ms granularity.
const Fine = 1500 * time.Microsecond

// Until waits for wall time t; it reports false when ctx ended. It waits
// on timer (which it resets) until Fine before t, then sleeps the rest
// with Sleep. ctx is not checked during that last stretch (at most Fine).
func Until(ctx context.Context, timer *time.Timer, t time.Time) bool {
	if d := time.Until(t) - Fine; d > 0 {
		timer.Reset(d)
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
		}
	}
	Sleep(time.Until(t))
	return ctx.Err() == nil
}
