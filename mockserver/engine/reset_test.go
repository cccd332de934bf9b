package engine

import (
	"testing"
	"time"
)

// TestResetPrefixCache: after a reset an idle engine recomputes a prompt
// it had cached.
func TestResetPrefixCache(t *testing.T) {
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	prompt := make([]int, 256)
	for i := range prompt {
		prompt[i] = i + 1
	}
	now := time.Duration(0)
	run := func(id string) int {
		t.Helper()
		if err := e.Add(now, &Request{ID: id, Prompt: prompt, MaxTokens: 2}); err != nil {
			t.Fatal(err)
		}
		cached := -1
		for range 1000 {
			st := e.Step(now)
			for _, ev := range st.Events {
				if ev.ID == id && ev.Admitted {
					cached = ev.CachedTokens
				}
			}
			now += max(st.Duration, time.Millisecond)
			if e.Idle() {
				return cached
			}
		}
		t.Fatal("request did not finish")
		return 0
	}
	if c := run("a"); c != 0 {
		t.Fatalf("first run cached %d tokens", c)
	}
	if c := run("b"); c == 0 {
		t.Fatal("second run hit nothing: the test does not exercise the cache")
	}
	if !e.ResetPrefixCache() {
		t.Fatal("idle engine refused the reset")
	}
	if c := run("c"); c != 0 {
		t.Fatalf("after the reset %d tokens were cached", c)
	}
}
