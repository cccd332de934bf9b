package cli

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/replay"
)

// kvFlags are the KV event flags of a Run with a KV-event router.
type kvFlags struct {
	Endpoints  []string
	Delay      time.Duration
	Listen     string
	TopicMaps  []string
	TopicsFile string
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
	fs.StringVar(&k.Listen, "kv-events-listen", "",
		"bind one ZeroMQ SUB socket here (tcp://host:port) that the targets' KV event publishers dial, as llm-d deploys "+
			"vLLM, instead of dialling each; batches go to a target by topic: llm-d's kv@<ip>[:port]@<model>, "+
			"--kv-events-topic, or any topic with one target; --kv-events then gives only replay endpoints (,REPLAY)")
	fs.StringArrayVar(&k.TopicMaps, "kv-events-topic", nil,
		"with --kv-events-listen: TOPIC=TARGET sends that topic's batches to a target, named by URL, host:port or "+
			"0-based index (repeatable; vLLM's topic is its --kv-events-config \"topic\")")
	fs.StringVar(&k.TopicsFile, "kv-events-topics", "",
		"with --kv-events-listen: file of TOPIC=TARGET lines (# comments), as --kv-events-topic")
}

// listening reports whether listen mode or a topic mapping was asked for.
func (k *kvFlags) listening() bool {
	return k.Listen != "" || len(k.TopicMaps) > 0 || k.TopicsFile != ""
}

// resolve sets rs's KV event wiring for the targets: dialled endpoints,
// or listen mode with its topic mapping and replay endpoints.
func (k *kvFlags) resolve(rs *runSpec, targets []string) error {
	if !k.listening() {
		eps, err := k.targetEndpoints(targets, true)
		rs.KVEvents = eps
		return err
	}
	if !strings.HasPrefix(k.Listen, "tcp://") {
		return usagef("--kv-events-listen %q: want tcp://host:port (topic mappings need it too)", k.Listen)
	}
	topics, err := k.topicMap(targets)
	if err != nil {
		return err
	}
	rs.KVListen = replay.KVListen{Endpoint: k.Listen, Topics: topics}
	if len(k.Endpoints) > 0 {
		rs.KVEvents, err = k.targetEndpoints(targets, false)
	}
	return err
}

// topicMap reads --kv-events-topics and --kv-events-topic; a topic
// given two targets is refused, naming both.
func (k *kvFlags) topicMap(targets []string) (map[string]int, error) {
	out := map[string]int{}
	add := func(where, line string) error {
		topic, b, err := parseTopicMapping(line, targets)
		if err != nil {
			return usagef("%s: %v", where, err)
		}
		if prev, ok := out[topic]; ok && prev != b {
			return usagef("%s: topic %q is mapped to target %d (%s) and target %d (%s)", where, topic, prev,
				targets[prev], b, targets[b])
		}
		out[topic] = b
		return nil
	}
	if k.TopicsFile != "" {
		data, err := os.ReadFile(k.TopicsFile)
		if err != nil {
			return nil, usagef("--kv-events-topics: %v", err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if err := add(fmt.Sprintf("--kv-events-topics %s:%d", k.TopicsFile, i+1), line); err != nil {
				return nil, err
			}
		}
	}
	for _, v := range k.TopicMaps {
		if err := add("--kv-events-topic "+v, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseTopicMapping reads TOPIC=TARGET, the target named by URL,
// host:port or 0-based index.
func parseTopicMapping(s string, targets []string) (string, int, error) {
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return "", 0, fmt.Errorf("want TOPIC=TARGET, got %q", s)
	}
	topic, name := s[:i], strings.TrimSpace(s[i+1:])
	if n, err := strconv.Atoi(name); err == nil {
		if n < 0 || n >= len(targets) {
			return "", 0, fmt.Errorf("target %d out of range (%d targets)", n, len(targets))
		}
		return topic, n, nil
	}
	for j, t := range targets {
		u, err := url.Parse(t)
		if strings.TrimSuffix(t, "/") == strings.TrimSuffix(name, "/") || err == nil && u.Host == name {
			return topic, j, nil
		}
	}
	return "", 0, fmt.Errorf("target %q is none of the --target URLs, host:port or indexes", name)
}

// readsKVEvents reports whether the named router decides from KV events.
var readsKVEvents = bench.ReadsKVEvents

// targetEndpoints resolves --kv-events for the targets; needPub: each
// must name a PUB endpoint (dial mode), else only replay ones count.
func (k *kvFlags) targetEndpoints(targets []string, needPub bool) ([]replay.KVEndpoint, error) {
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
		if err == nil && needPub && ep.Pub == "" {
			err = fmt.Errorf("no PUB endpoint")
		}
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
	if pub == "" && rep == "" {
		return replay.KVEndpoint{}, fmt.Errorf("no endpoint")
	}
	return replay.KVEndpoint{Pub: pub, Replay: rep}, nil
}

// mockKVFlags are `tracebench mock`'s KV event wiring flags beside
// --kv-events.
type mockKVFlags struct {
	Connect string
	Format  string
}

func (k *mockKVFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&k.Connect, "kv-events-connect", "",
		"with --kv-events: dial this consumer's bound SUB socket (tcp://host:port) instead of binding PUB sockets, "+
			"with llm-d's topic kv@<host>:<port>@<model> (replay sockets stay bound)")
	fs.StringVar(&k.Format, "kv-events-format", "array",
		"with --kv-events: event encoding, array (vLLM's positional arrays) or map (named-field maps)")
}

// apply sets fc's KV event wiring from the flags.
func (k *mockKVFlags) apply(fc *mockserver.FleetConfig) error {
	enc, err := kvevents.ParseEncoding(k.Format)
	if err != nil {
		return usagef("--kv-events-format: %v", err)
	}
	if (k.Connect != "" || k.Format != "array") && !fc.KVEvents {
		return usagef("--kv-events-connect and --kv-events-format need --kv-events")
	}
	if k.Connect != "" && !strings.HasPrefix(k.Connect, "tcp://") {
		return usagef("--kv-events-connect %q: want tcp://host:port", k.Connect)
	}
	fc.KVConnect, fc.KVEncoding = k.Connect, enc
	return nil
}

// printMockKV prints where each replica's KV events go.
func printMockKV(out io.Writer, f *mockserver.Fleet, fc mockserver.FleetConfig) {
	if !fc.KVEvents {
		return
	}
	pubs, reps := f.KVEventEndpoints()
	for i, u := range f.URLs() {
		if fc.KVConnect != "" {
			fmt.Fprintf(out, "kv-events of %s: dialling %s, topic kv@%s@%s, replay %s (%s)\n", u, fc.KVConnect,
				strings.TrimPrefix(u, "http://"), fc.Options.ModelName, reps[i], fc.KVEncoding)
			continue
		}
		fmt.Fprintf(out, "kv-events of %s: %s,%s (%s)\n", u, pubs[i], reps[i], fc.KVEncoding)
	}
}
