package kvevents

import (
	"fmt"
	"net"
	"strings"
)

// Topics tells a Listener which backend a message's topic belongs to:
// topics mapped explicitly (Map), else llm-d's "kv@<pod-ip>[:port]@<model>"
// matched against the backends' host:port, else, with a single backend,
// every topic (vLLM's default topic is empty).
type Topics struct {
	exact  map[string]int
	hosts  []string // backend -> "host:port"
	replay []string // backend -> replay endpoint ("" for none)
}

// NewTopics returns the routing for backends reachable at hostPorts
// ("host:port", as in their URLs), each with its replay endpoint (nil or
// "" for none).
func NewTopics(hostPorts, replays []string) *Topics {
	t := &Topics{exact: map[string]int{}, hosts: make([]string, len(hostPorts)), replay: make([]string, len(hostPorts))}
	for i, hp := range hostPorts {
		t.hosts[i] = normalHostPort(hp)
		if i < len(replays) {
			t.replay[i] = replays[i]
		}
	}
	return t
}

// normalHostPort writes localhost as 127.0.0.1, as llm-d's pod IPs are.
func normalHostPort(hp string) string {
	h, p, err := net.SplitHostPort(hp)
	if err != nil {
		h, p = hp, ""
	}
	if h == "localhost" {
		h = "127.0.0.1"
	}
	if p == "" {
		return h
	}
	return net.JoinHostPort(h, p)
}

// Map sends topic's messages to backend b. Mapping one topic to two
// backends is refused, naming both.
func (t *Topics) Map(topic string, b int) error {
	if b < 0 || b >= len(t.hosts) {
		return fmt.Errorf("topic %q: backend %d out of range (%d backends)", topic, b, len(t.hosts))
	}
	if prev, ok := t.exact[topic]; ok && prev != b {
		return fmt.Errorf("topic %q is mapped to backend %d and backend %d: one topic is one publisher's", topic, prev, b)
	}
	t.exact[topic] = b
	return nil
}

// Lookup returns the backend of topic and its replay endpoint, or an
// error saying why no backend matches (unknown, or a host several
// backends share).
func (t *Topics) Lookup(topic string) (int, string, error) {
	if b, ok := t.exact[topic]; ok {
		return b, t.replay[b], nil
	}
	if addr, ok := llmdTopicAddr(topic); ok {
		var hits []int
		for b, hp := range t.hosts {
			if hp == addr || !strings.Contains(addr, ":") && hostOf(hp) == addr {
				hits = append(hits, b)
			}
		}
		switch len(hits) {
		case 1:
			return hits[0], t.replay[hits[0]], nil
		case 0:
			return 0, "", fmt.Errorf("topic %q names %s, which is no backend's host:port", topic, addr)
		}
		return 0, "", fmt.Errorf("topic %q names %s, which backends %v share: map it with a topic mapping", topic, addr, hits)
	}
	if len(t.hosts) == 1 {
		return 0, t.replay[0], nil
	}
	return 0, "", fmt.Errorf("topic %q is mapped to no backend", topic)
}

// llmdTopicAddr returns the pod address of an llm-d topic
// "kv@<pod-ip>[:port]@<model>".
func llmdTopicAddr(topic string) (string, bool) {
	rest, ok := strings.CutPrefix(topic, "kv@")
	if !ok {
		return "", false
	}
	addr, model, ok := strings.Cut(rest, "@")
	if !ok || addr == "" || model == "" {
		return "", false
	}
	return normalHostPort(addr), true
}

func hostOf(hp string) string {
	if h, _, err := net.SplitHostPort(hp); err == nil {
		return h
	}
	return hp
}
