package gateway

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/replay"
)

// TestDiscoveryJoinLeave re-resolves the fleet as a replay does: a
// backend that appears joins and gets picks, one that disappears leaves
// and gets none, and both changes are fleet Events in the results file.
func TestDiscoveryJoinLeave(t *testing.T) {
	mocks := startMocks(t, 2, mockserver.Options{})
	var mu sync.Mutex
	current := mocks[:1]
	resolve := func(context.Context) ([]string, error) {
		mu.Lock()
		defer mu.Unlock()
		return current, nil
	}
	tg := startGateway(t, mocks[:1], gwConfig{edit: func(o *Options) {
		o.Discover = &replay.Discovery{Every: 5 * time.Millisecond, Resolve: resolve}
	}})
	live := func(n int) func() bool {
		return func() bool { return len(tg.g.liveURLs()) == n }
	}
	send := func(n int) {
		for range n {
			if code, _, body := post(t, tg.url+"/v1/completions", `{"prompt":"a b c","max_tokens":1}`, nil); code != 200 {
				t.Fatalf("status %d: %s", code, body)
			}
		}
	}
	mu.Lock()
	current = mocks
	mu.Unlock()
	waitFor(t, "the second backend to join", live(2))
	send(4)
	mu.Lock()
	current = mocks[1:]
	mu.Unlock()
	waitFor(t, "the first backend to leave", live(1))
	send(3)
	tg.shutdown()
	picks := map[int]int{}
	for i, r := range readResults(t, tg.results) {
		if i >= 4 {
			picks[r.Backend+10]++ // after the leave
		} else {
			picks[r.Backend]++
		}
	}
	if picks[0] != 2 || picks[1] != 2 || picks[11] != 3 {
		t.Errorf("picks %v: want 2 and 2 while both were live, then 3 on b1 (keys +10)", picks)
	}
	joined, left := fleetEvents(t, tg.results)
	if joined[mocks[1]] != 1 || left[mocks[0]] != 1 {
		t.Errorf("fleet events joined %v left %v", joined, left)
	}
}

// fleetEvents counts a results file's fleet joins and leaves by URL.
func fleetEvents(t *testing.T, path string) (joined, left map[string]int) {
	t.Helper()
	_, _, evs := testfixtures.ReadResults(t, path)
	joined, left = map[string]int{}, map[string]int{}
	for _, e := range evs {
		if len(e.Source) <= len(replay.FleetEventPrefix) {
			continue
		}
		u := e.Source[len(replay.FleetEventPrefix):]
		joined[u] += int(e.Values[replay.FleetJoined])
		left[u] += int(e.Values[replay.FleetLeft])
	}
	return joined, left
}
