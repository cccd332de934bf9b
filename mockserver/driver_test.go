package mockserver

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
)

// TestDriverGathersFirstBatch adds a request to a static-batching engine
// before its driver goroutine runs, then two more inside the batch
// window: all three must run as one batch (6 steps, its longest member),
// not as a batch of one followed by a batch of two (8 steps). Time is the
// bubble's fake clock, so the window is exact.
func TestDriverGathersFirstBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := profile.BuiltinConfig("linear-static")
		if err != nil {
			t.Fatal(err)
		}
		eng, err := engine.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		d := newDriver(eng, 1, func() time.Duration { return 0 }, slog.New(slog.DiscardHandler))
		d.window = 10 * time.Millisecond
		steps := 0
		d.onStep = func(engine.Step) { steps++ }
		add := func(id string, n int) {
			if _, err := d.add(&engine.Request{ID: id, Prompt: []int{1, 2, 3}, MaxTokens: n, IgnoreEOS: true}); err != nil {
				t.Fatal(err)
			}
		}
		add("a", 2)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { d.run(ctx); close(done) }()
		synctest.Wait()
		time.Sleep(5 * time.Millisecond) // inside the window
		add("b", 6)
		add("c", 4)
		time.Sleep(time.Second)
		cancel()
		<-done
		if steps != 6 {
			t.Fatalf("steps %d, want 6 (one static batch, longest member 6 tokens)", steps)
		}
	})
}
