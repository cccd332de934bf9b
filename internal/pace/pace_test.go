package pace

import (
	"context"
	"testing"
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
// once and is reported.
func TestUntilCanceled(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if Until(ctx, timer, start.Add(time.Hour)) {
		t.Fatal("Until with a canceled context reported true")
	}
	if el := time.Since(start); el > time.Minute {
		t.Fatalf("Until waited %v after cancel", el)
	}
}

// TestSleepNonPositive checks that Sleep returns at once for d ≤ 0.
func TestSleepNonPositive(t *testing.T) {
	Sleep(0)
	Sleep(-time.Second)
}
