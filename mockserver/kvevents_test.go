package mockserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tracebench/tracebench/kvevents"
)

// waitUntil polls cond until it holds, failing after 5 s (events cross
// loopback ZeroMQ asynchronously).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// TestFleetPublishesKVEvents sends a token prompt to a replica that
// publishes KV events and checks the subscriber's index holds exactly the
// engine's block hashes of it, then that a prefix cache reset clears them.
func TestFleetPublishesKVEvents(t *testing.T) {
	f, err := StartFleet(context.Background(), FleetConfig{Replicas: 2, Options: fastOptions(), KVEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	pubs, replays := f.KVEventEndpoints()
	bs := f.Servers()[0].opts.Engine.BlockSize
	x, err := kvevents.NewIndex(2, bs, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var done []<-chan struct{}
	for i := range pubs {
		done = append(done, kvevents.Subscribe(ctx, x, i, pubs[i], replays[i], kvevents.SubscriberOptions{}))
	}
	defer func() {
		cancel()
		for _, d := range done {
			<-d
		}
	}()
	waitUntil(t, "subscriptions", func() bool { s := x.Stats(); return s[0].Subscribed && s[1].Subscribed })

	prompt := make([]int, 5*bs+3)
	for i := range prompt {
		prompt[i] = 1000 + i
	}
	body, _ := json.Marshal(map[string]any{"prompt": prompt, "max_tokens": 2})
	want := kvevents.ChainHashes(nil, prompt, bs, kvevents.SaltHash(""))
	// A PUB socket drops what it sends before a subscription reaches it:
	// reset the cache and repeat the request until its blocks show.
	waitUntil(t, "stored blocks", func() bool {
		post(t, f.URLs()[0]+"/reset_prefix_cache", "")
		if code, _, b := post(t, f.URLs()[0]+"/v1/completions", string(body)); code != 200 {
			t.Fatalf("completion: %d %s", code, b)
		}
		return x.Match(want, nil)[0] == len(want)
	})
	if got := x.Match(want, nil); got[1] != 0 {
		t.Errorf("replica 1 holds %d blocks of a prompt it never saw", got[1])
	}
	if code, _, b := post(t, f.URLs()[0]+"/reset_prefix_cache", ""); code != 200 {
		t.Fatalf("reset: %d %s", code, b)
	}
	waitUntil(t, "cleared", func() bool { return x.Match(want, nil)[0] == 0 })
	if s := x.Stats()[0]; s.Restarts < 1 || s.Malformed+s.UnknownTags+s.BlockSizeMismatch != 0 {
		t.Errorf("stats %+v, want a restart and no problems", s)
	}
}
