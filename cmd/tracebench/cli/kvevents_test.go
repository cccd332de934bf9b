package cli

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/replay"
)

func TestExpandKVPattern(t *testing.T) {
	tests := []struct {
		pattern, target string
		want            replay.KVEndpoint
		err             string
	}{
		{defaultKVPattern, "http://10.0.0.1:8000", replay.KVEndpoint{Pub: "tcp://10.0.0.1:9000", Replay: "tcp://10.0.0.1:10000"}, ""},
		{"tcp://{host}:5557", "http://h:8000", replay.KVEndpoint{Pub: "tcp://h:5557"}, ""},
		{"tcp://{host}:{port}", "https://h", replay.KVEndpoint{Pub: "tcp://h:443"}, ""},
		{"tcp://127.0.0.1:5557,tcp://127.0.0.1:5558", "http://x:1", replay.KVEndpoint{Pub: "tcp://127.0.0.1:5557", Replay: "tcp://127.0.0.1:5558"}, ""},
		{"tcp://{host}:{port+1000}", "http://h:65000", replay.KVEndpoint{}, "over 65535"},
		{"ipc:///tmp/kv", "http://h:1", replay.KVEndpoint{}, "want tcp://"},
		{",tcp://h:1", "http://h:1", replay.KVEndpoint{Replay: "tcp://h:1"}, ""},
		{",", "http://h:1", replay.KVEndpoint{}, "no endpoint"},
	}
	for _, tt := range tests {
		got, err := expandKVPattern(tt.pattern, tt.target)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q on %s: err %v, want %q", tt.pattern, tt.target, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q on %s = %+v, %v; want %+v", tt.pattern, tt.target, got, err, tt.want)
		}
	}
}

func TestKVFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--sim", "2", "--kv-events", "tcp://h:1"}, "--kv-events and --kv-events-listen apply to --target only"},
		{[]string{"--mock", "2", "--kv-events-listen", "tcp://127.0.0.1:0"}, "apply to --target only"},
		{[]string{"--target", "http://127.0.0.1:1", "--kv-events", ",tcp://h:1"}, "no PUB endpoint"},
		{[]string{"--target", "http://127.0.0.1:1", "--kv-events-listen", "udp://x"}, "want tcp://host:port"},
		{[]string{"--target", "http://127.0.0.1:1", "--target", "http://127.0.0.1:2", "--kv-events-listen", "tcp://127.0.0.1:0",
			"--kv-events-topic", "vllm=0", "--kv-events-topic", "vllm=127.0.0.1:2"},
			`--kv-events-topic vllm=127.0.0.1:2: topic "vllm" is mapped to target 0 (http://127.0.0.1:1) and target 1 (http://127.0.0.1:2)`},
		{[]string{"--target", "http://127.0.0.1:1", "--kv-events-listen", "tcp://127.0.0.1:0", "--kv-events-topic", "vllm"},
			"want TOPIC=TARGET"},
		{[]string{"--target", "http://127.0.0.1:1", "--kv-events-listen", "tcp://127.0.0.1:0", "--kv-events-topic", "v=3"},
			"target 3 out of range"},
		{[]string{"--mock", "1", "--kv-event-delay", "1s"}, "--kv-event-delay applies to --sim only"},
		{[]string{"--sim", "2", "--kv-event-delay", "-1s"}, "want ≥ 0"},
		{[]string{"--target", "http://127.0.0.1:1", "--target", "http://127.0.0.1:2", "--kv-events", "tcp://a:1",
			"--kv-events", "tcp://a:2", "--kv-events", "tcp://a:3"}, "given 3 times for 2 targets"},
	}
	file := t.TempDir() + "/topics"
	if err := os.WriteFile(file, []byte("# llm-d pods\nkv@10.0.0.1:8000@m=0\n\nkv@10.0.0.2:8000@m=http://nowhere:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		args []string
		want string
	}{[]string{"--target", "http://127.0.0.1:1", "--kv-events-listen", "tcp://127.0.0.1:0", "--kv-events-topics", file},
		"--kv-events-topics " + file + ":4: target \"http://nowhere:1\" is none of the --target URLs"})
	for _, tt := range tests {
		var out, errb bytes.Buffer
		args := append([]string{"replay", "--workload", "uniform", "--max-requests", "2", "--policy", "precise-prefix",
			"--out", t.TempDir() + "/r.jsonl"}, tt.args...)
		if code := Run(args, &out, &errb); code == ExitOK || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

// TestReplayPrecisePrefixMockEndToEnd runs precise-prefix from the
// command line against the in-process mock fleet, which then publishes
// KV events over loopback: the router predicts the servers' hits and the
// summary holds every replica's stream.
func TestReplayPrecisePrefixMockEndToEnd(t *testing.T) {
	_, s := simReplay(t, "replay", "--workload", "shared-prefix", "--max-requests", "40", "--mock", "2",
		"--mock-time-scale", "0.05", "--policy", "precise-prefix")
	if s.HitRate.Server < 0.3 || math.Abs(s.HitRate.Predicted-s.HitRate.Server) > 0.05 {
		t.Errorf("hit server %.3f predicted %.3f: want shared prefixes hit and predicted within 5 points",
			s.HitRate.Server, s.HitRate.Predicted)
	}
	if len(s.KVEvents) != 2 || s.KVEvents[0].Events == 0 || s.KVEvents[1].Unreachable {
		t.Errorf("KV event rows %+v, want two subscribed streams with events", s.KVEvents)
	}
}

// FuzzParseTopicMapping checks that a TOPIC=TARGET line either fails or
// names a target in range, with the topic everything before the last '='.
func FuzzParseTopicMapping(f *testing.F) {
	for _, s := range []string{"kv@10.0.0.1:8000@m=0", "vllm=http://127.0.0.1:2", "a=b=127.0.0.1:1", "=1", "x", "t=-1"} {
		f.Add(s)
	}
	targets := []string{"http://127.0.0.1:1", "http://127.0.0.1:2/"}
	f.Fuzz(func(t *testing.T, s string) {
		topic, b, err := parseTopicMapping(s, targets)
		if err != nil {
			return
		}
		if b < 0 || b >= len(targets) || !strings.HasPrefix(s, topic+"=") {
			t.Fatalf("%q -> topic %q target %d", s, topic, b)
		}
	})
}
