package pace

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"
)

// TestUntilNeverEarly checks that Until returns at or after its deadline,
// whether the wait is all precise sleep, all timer or both.
func TestUntilNeverEarly(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for _, d := range []time.Duration{-time.Millisecond, 0, 200 * time.Microsecond, Fine, 3 * time.Millisecond} {
		at := time.Now().Add(d)
		if !Until(context.Background(), timer, at) {
			t.Fatalf("Until(%v) reported a canceled context", d)
		}
		if now := time.Now(); now.Before(at) {
			t.Errorf("Until(%v) returned %v early", d, at.Sub(now))
		}
	}
}

// TestUntilCanceled checks that a canceled context ends a long wait at
// once and is reported. The test runs in a synctest bubble: were the
// context ignored, the fake clock would jump the hour and the elapsed
// time would fail the test instead of hanging it.
func TestUntilCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		start := time.Now()
		if Until(ctx, timer, start.Add(time.Hour)) {
			t.Fatal("Until with a canceled context reported true")
		}
		if el := time.Since(start); el != 0 {
			t.Fatalf("Until waited %v of fake time after cancel, want none", el)
		}
	})
}

// sleepBound is how long TestSleepNonPositive waits for Sleep to
// return before it fails: far above a return at once, far below a hang.
const sleepBound = 10 * time.Second

// TestSleepNonPositive checks that Sleep returns at once for d ≤ 0: it
// runs Sleep on its own goroutine and fails when it has not returned
// within sleepBound (Sleep blocks in nanosleep(2), which a synctest
// bubble cannot fake).
func TestSleepNonPositive(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Nanosecond, -time.Second, math.MinInt64} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			Sleep(d)
		}()
		select {
		case <-done:
		case <-time.After(sleepBound):
			t.Fatalf("Sleep(%v) still blocked after %v", d, sleepBound)
		}
	}
}
