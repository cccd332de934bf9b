package kvevents

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/go-zeromq/zmq4"
)

// Listener is one bound SUB socket that publishers dial (as llm-d
// deploys vLLM, and as vLLM does whenever its endpoint has no wildcard).
// Each message goes to a backend by its topic (see Topics); each topic
// is one publisher, with its own sequence numbers, gap replay and
// restarts. Messages on topics no backend matches are counted per topic.
type Listener struct {
	x       *Index
	topics  *Topics
	o       SubscriberOptions
	sub     zmq4.Socket
	streams map[string]*stream
	// early holds, per backend with a replay endpoint, the stream that
	// polls it from the start (see stream.pollStart); the first topic of
	// the backend to arrive takes it over.
	early map[int]*stream
	polls sync.WaitGroup
	done  chan struct{}

	mu       sync.Mutex
	received int64
	unknown  map[string]*TopicCount
}

// TopicCount is a topic no backend matched, with its messages and why.
type TopicCount struct {
	// Topic is the message's first frame.
	Topic string
	// Messages counts the messages received on it.
	Messages int64
	// Why says why no backend matched.
	Why string
}

// Listen binds a SUB socket on endpoint ("tcp://127.0.0.1:5557"; port 0
// picks a free one, see Endpoint), subscribes to every topic and applies
// the batches to x until ctx ends. Every backend of x is marked
// subscribed: the socket is there for its publisher to dial.
func Listen(ctx context.Context, x *Index, endpoint string, t *Topics, o SubscriberOptions) (*Listener, error) {
	l := &Listener{x: x, topics: t, o: o.withDefaults(), streams: map[string]*stream{}, done: make(chan struct{}),
		unknown: map[string]*TopicCount{}}
	l.sub = zmq4.NewSub(ctx)
	if err := l.sub.Listen(endpoint); err != nil {
		_ = l.sub.Close()
		return nil, fmt.Errorf("kv events: listen on %s: %w", endpoint, err)
	}
	if err := l.sub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		_ = l.sub.Close()
		return nil, fmt.Errorf("kv events: subscribe on %s: %w", endpoint, err)
	}
	for b := range x.Backends() {
		x.Note(b, func(s *Stats) { s.Subscribed = true })
	}
	l.startPolls(ctx)
	go l.run(ctx)
	return l, nil
}

// startPolls starts, for every backend with a replay endpoint, the
// stream that fetches from it what was published before its publisher's
// first batch reaches the listener.
func (l *Listener) startPolls(ctx context.Context) {
	l.early = map[int]*stream{}
	for b, replay := range l.topics.replay {
		if replay == "" || l.o.StartPoll < 0 {
			continue
		}
		s := &stream{x: l.x, b: b, replay: replay, o: l.o}
		l.early[b] = s
		l.x.Note(b, func(st *Stats) { st.ReplayEndpoint = replay })
		l.polls.Add(1)
		go func() {
			defer l.polls.Done()
			s.pollStart(ctx)
		}()
	}
}

// Endpoint returns the bound endpoint as a tcp:// URL.
func (l *Listener) Endpoint() string { return "tcp://" + l.sub.Addr().String() }

// Done is closed when the Listener has stopped (its context ended).
func (l *Listener) Done() <-chan struct{} { return l.done }

// Received returns the messages received on any topic.
func (l *Listener) Received() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.received
}

// Unknown returns the topics no backend matched, by topic.
func (l *Listener) Unknown() []TopicCount {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]TopicCount, 0, len(l.unknown))
	for _, c := range l.unknown {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b TopicCount) int {
		if a.Topic < b.Topic {
			return -1
		}
		return 1
	})
	return out
}

func (l *Listener) run(ctx context.Context) {
	defer close(l.done)
	defer l.polls.Wait()
	defer l.sub.Close()
	receive(l.sub, func(frames [][]byte) { l.route(ctx, frames) })
}

// route hands one message to its topic's stream.
func (l *Listener) route(ctx context.Context, frames [][]byte) {
	topic := ""
	if len(frames) > 0 {
		topic = string(frames[0])
	}
	l.mu.Lock()
	l.received++
	l.mu.Unlock()
	s, ok := l.streams[topic]
	if !ok {
		b, replay, err := l.topics.Lookup(topic)
		if err != nil {
			l.countUnknown(topic, err.Error())
			return
		}
		if s = l.early[b]; s != nil {
			delete(l.early, b)
		} else {
			s = &stream{x: l.x, b: b, replay: replay, o: l.o}
		}
		l.streams[topic] = s
		l.x.Note(b, func(st *Stats) {
			st.Topics = append(st.Topics, topic)
			if replay != "" {
				st.ReplayEndpoint = replay
			}
		})
	}
	s.handle(ctx, frames)
}

func (l *Listener) countUnknown(topic, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.unknown[topic]
	if c == nil {
		if len(l.unknown) >= maxUnknownTopics {
			topic, why = "(other topics)", "more than 64 unknown topics"
			if c = l.unknown[topic]; c == nil {
				c = &TopicCount{Topic: topic, Why: why}
				l.unknown[topic] = c
			}
		} else {
			c = &TopicCount{Topic: topic, Why: why}
			l.unknown[topic] = c
		}
	}
	c.Messages++
}

// maxUnknownTopics bounds the unknown topics kept by name.
const maxUnknownTopics = 64
