package cli

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/replay"
)

// kvFlags are the KV event flags of a Run with a KV-event router.
type kvFlags struct {
	Endpoints []string
	Delay     time.Duration
}

// defaultKVPattern is the endpoint pattern used for --target backends
// when --kv-events is not given: `tracebench mock --kv-events`'s ports.
var defaultKVPattern = fmt.Sprintf("tcp://{host}:{port+%d},tcp://{host}:{port+%d}",
	mockserver.KVEventPortOffset, mockserver.KVReplayPortOffset)

func (k *kvFlags) bind(fs *pflag.FlagSet) {
	fs.StringArrayVar(&k.Endpoints, "kv-events", nil,
		"KV event endpoint of a --target for a KV-event router (precise-prefix): PUB[,REPLAY], once per target in order, "+
			"or once as a pattern with {host}, {port} and {port+N} taken from each target URL (default "+defaultKVPattern+")")
	fs.DurationVar(&k.Delay, "kv-event-delay", 0, "--sim only: lag before a KV-event router sees a simulated engine's events")
}

// readsKVEvents reports whether the named router decides from KV events.
var readsKVEvents = bench.ReadsKVEvents

// targetEndpoints resolves --kv-events for the targets.
func (k *kvFlags) targetEndpoints(targets []string) ([]replay.KVEndpoint, error) {
	vals := k.Endpoints
	if len(vals) == 0 {
		vals = []string{defaultKVPattern}
	}
	if len(vals) != 1 && len(vals) != len(targets) {
		return nil, usagef("--kv-events given %d times for %d targets: give it once (a pattern) or once per target",
			len(vals), len(targets))
	}
	out := make([]replay.KVEndpoint, len(targets))
	for i, t := range targets {
		v := vals[min(i, len(vals)-1)]
		ep, err := expandKVPattern(v, t)
		if err != nil {
			return nil, usagef("--kv-events %q for target %s: %v", v, t, err)
		}
		out[i] = ep
	}
	return out, nil
}

var portExpr = regexp.MustCompile(`\{port(?:\+(\d+))?\}`)

// expandKVPattern fills {host}, {port} and {port+N} from target and
// splits PUB[,REPLAY], each a tcp:// endpoint.
func expandKVPattern(pattern, target string) (replay.KVEndpoint, error) {
	u, err := url.Parse(target)
	if err != nil {
		return replay.KVEndpoint{}, err
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = map[string]int{"http": 80, "https": 443}[u.Scheme]
	}
	var bad error
	s := strings.ReplaceAll(pattern, "{host}", u.Hostname())
	s = portExpr.ReplaceAllStringFunc(s, func(m string) string {
		n := 0
		if sub := portExpr.FindStringSubmatch(m); sub[1] != "" {
			n, _ = strconv.Atoi(sub[1])
		}
		if port+n > 65535 {
			bad = fmt.Errorf("port %d+%d is over 65535", port, n)
		}
		return strconv.Itoa(port + n)
	})
	if bad != nil {
		return replay.KVEndpoint{}, bad
	}
	pub, rep, _ := strings.Cut(s, ",")
	for _, e := range []string{pub, rep} {
		if e != "" && !strings.HasPrefix(e, "tcp://") {
			return replay.KVEndpoint{}, fmt.Errorf("endpoint %q: want tcp://host:port", e)
		}
	}
	if pub == "" {
		return replay.KVEndpoint{}, fmt.Errorf("no PUB endpoint")
	}
	return replay.KVEndpoint{Pub: pub, Replay: rep}, nil
}
