package gateway

import (
	"sync/atomic"
	"time"
)

// clock is the gateway's run clock: time since the first request
// arrived (monotonic), so a results file's times, like a replay's, count
// from the start of its traffic, not from when the gateway was started.
// Before the first request it reads 0. Safe for concurrent use.
type clock struct {
	start atomic.Pointer[time.Time]
}

// begin starts the clock at the first call and returns its reading.
func (c *clock) begin() time.Duration {
	if c.start.Load() == nil {
		t := time.Now()
		c.start.CompareAndSwap(nil, &t)
	}
	return c.now()
}

// now is the time since the first request (0 before it).
func (c *clock) now() time.Duration {
	t := c.start.Load()
	if t == nil {
		return 0
	}
	return time.Since(*t)
}
