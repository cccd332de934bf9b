package replay

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/policies"
)

// KVEndpoint is where one backend publishes its KV events: a ZeroMQ PUB
// endpoint and, optionally, its replay endpoint ("tcp://host:port").
type KVEndpoint struct {
	Pub, Replay string
}

// Stop.Extra keys of a KV-event router's streams: ExtraKVPrefix + "b<i>_"
// + one of the KVStat names, per backend.
const ExtraKVPrefix = "kv_events_"

// KVStatNames are the per-backend KV event figures in the stop record,
// in report order.
var KVStatNames = []string{"subscribed", "unreachable", "batches", "events", "gaps", "replayed", "lost",
	"lost_at_start", "orphans", "restarts", "malformed", "unknown_tags", "block_size_mismatch", "overflow", "blocks",
	"hashes_tokens"}

// KVExtraKey is the Stop.Extra key of figure name of backend b.
func KVExtraKey(b int, name string) string { return fmt.Sprintf("%sb%d_%s", ExtraKVPrefix, b, name) }

// KVListen is listen-mode KV events: one bound SUB socket that the
// Backends' publishers dial (llm-d's wiring, and vLLM's whenever its
// endpoint has no wildcard).
type KVListen struct {
	// Endpoint is the bind address, "tcp://host:port" (empty: dial each
	// Backend's publisher instead).
	Endpoint string
	// Topics maps topics to Backend indexes, beside llm-d's
	// "kv@<pod-ip>[:port]@<model>", matched to the Backends' URLs.
	Topics map[string]int
}

// kvWiring is how a Run reaches its Backends' KV events.
type kvWiring struct {
	eps      []KVEndpoint
	listen   KVListen
	backends []string // Backend URLs
}

// KVExtra returns the stop extras of idx's streams and one diagnosis per
// backend whose stream gave the router nothing (also logged), plus the
// topics a Listener l (nil when dialled) could not place.
func KVExtra(idx *kvevents.Index, l *kvevents.Listener) (map[string]float64, []string) {
	if idx == nil {
		return nil, nil
	}
	out := map[string]float64{}
	flag := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	var notes []string
	for b, s := range idx.Stats() {
		vals := []float64{flag(s.Subscribed), flag(s.Unreachable != ""), float64(s.Batches), float64(s.Events),
			float64(s.Gaps), float64(s.Replayed), float64(s.Lost), float64(s.LostAtStart), float64(s.Orphans),
			float64(s.Restarts), float64(s.Malformed),
			float64(s.UnknownTags), float64(s.BlockSizeMismatch), float64(s.Overflow), float64(s.Blocks),
			flag(s.Hashes == kvevents.HashesTokens.String())}
		for i, n := range KVStatNames {
			out[KVExtraKey(b, n)] = vals[i]
		}
		if late := kvLateStart(b, s); late != "" {
			slog.Warn("kv events: " + late)
		}
		if d := kvDiagnosis(b, s, l); d != "" {
			notes = append(notes, d)
			slog.Warn("kv events: " + d)
		} else if s.FirstProblem != "" {
			slog.Warn("kv events: bad input counted and skipped", "backend", b, "first", s.FirstProblem)
		}
	}
	if l != nil {
		var n int64
		for _, u := range l.Unknown() {
			n += u.Messages
			d := fmt.Sprintf("%d batches on topic %q went to no backend: %s", u.Messages, u.Topic, u.Why)
			notes = append(notes, d)
			slog.Warn("kv events: " + d)
		}
		out[ExtraKVPrefix+"unknown_topic_batches"] = float64(n)
	}
	return out, notes
}

// kvLateStart says, in one line, what backend b's stream missed before
// it joined and what that left in the index ("" when nothing): the
// batches lost at start and the stored blocks whose parents were never
// seen, which start chains of their own that no prompt matches.
func kvLateStart(b int, s kvevents.Stats) string {
	var parts []string
	if s.LostAtStart > 0 {
		how := "no replay endpoint to fetch them from: --kv-events ,tcp://HOST:PORT names the publisher's " +
			"replay socket (vLLM's replay_endpoint, llm-d-inference-sim's --kv-events-replay-endpoint)"
		if s.ReplayEndpoint != "" {
			how = "the replay socket " + s.ReplayEndpoint + " no longer held them or did not answer"
		}
		parts = append(parts, fmt.Sprintf("%d batches sent before its stream joined were lost at start (%s)",
			s.LostAtStart, how))
	}
	if s.Orphans > 0 {
		parts = append(parts, fmt.Sprintf("%d stored events named parent blocks never seen and start chains of "+
			"their own, so hits on the prefixes before them are not predicted", s.Orphans))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("backend %d: %s", b, strings.Join(parts, "; "))
}

// kvDiagnosis says, in one line, why backend b's stream gave the router
// no cache view ("" when it delivered batches).
func kvDiagnosis(b int, s kvevents.Stats, l *kvevents.Listener) string {
	switch {
	case s.Unreachable != "":
		return fmt.Sprintf("backend %d: stream unreachable (%s); the router decided by load alone", b, s.Unreachable)
	case s.Batches > 0:
		return ""
	case s.Malformed > 0:
		return fmt.Sprintf("backend %d published %d batches that could not be decoded (first error: %s)",
			b, s.Malformed, s.FirstProblem)
	case l != nil && l.Received() > 0:
		return fmt.Sprintf("backend %d: reachable, but no batch for this backend's topic "+
			"(publishers reached the listener on other topics; see the unknown topics)", b)
	case l != nil:
		return fmt.Sprintf("backend %d published nothing: no publisher dialled the listener "+
			"(vLLM: --kv-events-config with \"endpoint\" set to the listen address)", b)
	}
	return fmt.Sprintf("backend %d published nothing (vLLM needs --kv-events-config with enable_kv_cache_events)", b)
}

// subscribeKV binds a KV-event router to the backends' streams; it
// returns the index (nil for other routers) and a stop function, which
// may be called more than once and returns the Listener (nil when
// dialled).
func subscribeKV(ctx context.Context, r policies.Router, w kvWiring) (*kvevents.Index, func() *kvevents.Listener, error) {
	kr, ok := policies.As[policies.KVEventRouter](r)
	if !ok {
		return nil, func() *kvevents.Listener { return nil }, nil
	}
	n := len(w.backends)
	idx, err := kr.BindKVEvents(n)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var done []<-chan struct{}
	var l *kvevents.Listener
	if w.listen.Endpoint != "" {
		l, err = listenKV(ctx, idx, w)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		done = append(done, l.Done())
	} else {
		done = dialKV(ctx, idx, w.eps, n)
	}
	var once sync.Once
	return idx, func() *kvevents.Listener {
		once.Do(func() {
			cancel()
			for _, d := range done {
				<-d
			}
		})
		return l
	}, nil
}

// dialKV subscribes to each backend's PUB endpoint.
func dialKV(ctx context.Context, idx *kvevents.Index, eps []KVEndpoint, n int) []<-chan struct{} {
	var done []<-chan struct{}
	for b := range n {
		if b >= len(eps) || eps[b].Pub == "" {
			idx.Note(b, func(s *kvevents.Stats) { s.Unreachable = "no KV event endpoint given (--kv-events)" })
			continue
		}
		done = append(done, kvevents.Subscribe(ctx, idx, b, eps[b].Pub, eps[b].Replay, kvevents.SubscriberOptions{}))
	}
	return done
}

// listenKV binds the Listener, its topics mapped from the Backends'
// URLs and w.listen.Topics.
func listenKV(ctx context.Context, idx *kvevents.Index, w kvWiring) (*kvevents.Listener, error) {
	hosts := make([]string, len(w.backends))
	replays := make([]string, len(w.backends))
	for i, u := range w.backends {
		if pu, err := url.Parse(u); err == nil {
			hosts[i] = pu.Host
		}
		if i < len(w.eps) {
			replays[i] = w.eps[i].Replay
		}
	}
	t := kvevents.NewTopics(hosts, replays)
	for _, topic := range slices.Sorted(maps.Keys(w.listen.Topics)) {
		if err := t.Map(topic, w.listen.Topics[topic]); err != nil {
			return nil, err
		}
	}
	return kvevents.Listen(ctx, idx, w.listen.Endpoint, t, kvevents.SubscriberOptions{})
}

// waitSubscribed waits, at most 5 s, until every stream of idx is
// connected or known unreachable, so the Run's first batches are not
// published before anyone listens (nil idx: no wait).
func waitSubscribed(ctx context.Context, idx *kvevents.Index) {
	if idx == nil {
		return
	}
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ready := true
		for _, s := range idx.Stats() {
			ready = ready && (s.Subscribed || s.Unreachable != "")
		}
		if ready {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-tick.C:
		}
	}
}
