package kvevents

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
)

// DefaultBufferSteps is how many past batches a Publisher keeps for
// replay (vLLM's buffer_steps default, 10,000).
const DefaultBufferSteps = 10000

// endSeq is the sequence number ending a replay answer (−1 as 8 bytes).
var endSeq = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// Publisher publishes event batches the way vLLM's ZmqEventPublisher does:
// multipart [topic, seq, payload] on a PUB socket, sequence numbers from 0
// as 8-byte big-endian, and the last BufferSteps payloads kept for a
// ROUTER replay socket that answers a request [empty, start seq] with
// every kept batch from start as [empty, seq, payload], then [empty, −1,
// empty]. Publish never blocks the engine: batches go through a queue of
// QueueSize and are dropped (and counted) when it is full.
type Publisher struct {
	pub, replay zmq4.Socket
	topic       []byte
	enc         Encoding
	queue       chan Batch
	cancel      context.CancelFunc
	wg          sync.WaitGroup
	dialing     sync.WaitGroup // the background Dial of a Connect publisher

	mu      sync.Mutex
	closed  bool // Close was called: Publish drops
	seq     uint64
	ring    []sentBatch // circular, oldest at head
	head    int
	dropped int64
}

type sentBatch struct {
	seq     uint64
	payload []byte
}

// PublisherOptions configure NewPublisher. Zero values take the defaults.
type PublisherOptions struct {
	// Topic is the first frame of every message (default "", vLLM's).
	Topic string
	// BufferSteps is the number of batches kept for replay (default
	// DefaultBufferSteps).
	BufferSteps int
	// QueueSize bounds the batches waiting to be sent (default 100,000,
	// vLLM's max_queue_size).
	QueueSize int
	// Connect dials endpoint instead of binding it: the consumer binds
	// (llm-d's wiring; vLLM connects whenever the endpoint has no
	// wildcard). The replay socket is bound either way.
	Connect bool
	// Encoding is how events are written (default EncodingArray).
	Encoding Encoding
}

// NewPublisher binds a PUB socket on endpoint and, when replay is not
// empty, a ROUTER replay socket on replay (for example
// "tcp://127.0.0.1:5557" and "tcp://127.0.0.1:5558"; port 0 picks a free
// one, see Endpoints).
func NewPublisher(endpoint, replay string, o PublisherOptions) (*Publisher, error) {
	if o.BufferSteps <= 0 {
		o.BufferSteps = DefaultBufferSteps
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 100000
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Publisher{topic: []byte(o.Topic), enc: o.Encoding, queue: make(chan Batch, o.QueueSize), cancel: cancel,
		ring: make([]sentBatch, 0, o.BufferSteps)}
	p.pub = zmq4.NewPub(ctx, zmq4.WithDialerRetry(100*time.Millisecond), zmq4.WithDialerMaxRetries(-1))
	if err := p.bindOrDial(endpoint, o.Connect); err != nil {
		cancel()
		_ = p.pub.Close()
		return nil, err
	}
	if replay != "" {
		p.replay = zmq4.NewRouter(ctx)
		if err := p.replay.Listen(replay); err != nil {
			cancel()
			p.dialing.Wait()
			_ = p.pub.Close()
			_ = p.replay.Close()
			return nil, fmt.Errorf("kv events: listen on replay %s: %w", replay, err)
		}
		p.wg.Add(1)
		go p.serveReplay()
	}
	p.wg.Add(1)
	go p.send()
	return p, nil
}

// bindOrDial binds the PUB socket on endpoint, or, when connect, dials
// it in the background until it connects or the Publisher closes (as
// ZeroMQ's connect does: batches published before are dropped).
func (p *Publisher) bindOrDial(endpoint string, connect bool) error {
	if connect {
		if !strings.HasPrefix(endpoint, "tcp://") {
			return fmt.Errorf("kv events: dial %s: want tcp://host:port", endpoint)
		}
		p.dialing.Add(1)
		go func() {
			defer p.dialing.Done()
			if err := p.pub.Dial(endpoint); err != nil {
				slog.Debug("kv events: dial", "endpoint", endpoint, "err", err)
			}
		}()
		return nil
	}
	if err := p.pub.Listen(endpoint); err != nil {
		return fmt.Errorf("kv events: listen on %s: %w", endpoint, err)
	}
	return nil
}

// Endpoints returns the bound PUB and replay endpoints as tcp:// URLs
// (replay empty when there is none; pub empty when the PUB socket dials).
func (p *Publisher) Endpoints() (pub, replay string) {
	if a := p.pub.Addr(); a != nil {
		pub = "tcp://" + a.String()
	}
	if p.replay != nil {
		replay = "tcp://" + p.replay.Addr().String()
	}
	return pub, replay
}

// Publish queues b; it drops b and counts it when the queue is full or
// the Publisher is closed.
func (p *Publisher) Publish(b Batch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		p.dropped++
		return
	}
	select {
	case p.queue <- b:
	default:
		p.dropped++
	}
}

// Dropped returns the batches dropped on a full queue.
func (p *Publisher) Dropped() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

// Close sends what is queued, then closes the sockets.
func (p *Publisher) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.queue)
	p.mu.Unlock()
	p.wg.Wait()
	p.cancel()
	p.dialing.Wait()
	err := p.pub.Close()
	if p.replay != nil {
		err = errors.Join(err, p.replay.Close())
	}
	return err
}

// send encodes, numbers, publishes and keeps each queued batch.
func (p *Publisher) send() {
	defer p.wg.Done()
	if p.replay != nil {
		defer func() { p.cancel(); _ = p.replay.Close() }()
	}
	for b := range p.queue {
		payload, err := EncodeAs(b, p.enc)
		if err != nil {
			slog.Warn("kv events: batch not published", "err", err)
			continue
		}
		p.mu.Lock()
		seq := p.seq
		p.seq++
		p.keep(sentBatch{seq: seq, payload: payload})
		p.mu.Unlock()
		var sb [8]byte
		binary.BigEndian.PutUint64(sb[:], seq)
		if err := p.pub.SendMulti(zmq4.NewMsgFrom(p.topic, sb[:], payload)); err != nil {
			slog.Debug("kv events: publish", "seq", seq, "err", err)
		}
	}
}

// keep appends a sent batch to the replay ring (p.mu held).
func (p *Publisher) keep(s sentBatch) {
	if len(p.ring) < cap(p.ring) {
		p.ring = append(p.ring, s)
		return
	}
	p.ring[p.head] = s
	p.head = (p.head + 1) % len(p.ring)
}

// since returns the kept batches with seq ≥ start, oldest first.
func (p *Publisher) since(start uint64) []sentBatch {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []sentBatch
	for i := range p.ring {
		s := p.ring[(p.head+i)%len(p.ring)]
		if s.seq >= start {
			out = append(out, s)
		}
	}
	return out
}

// serveReplay answers replay requests until the socket closes.
func (p *Publisher) serveReplay() {
	defer p.wg.Done()
	for {
		msg, err := p.replay.Recv()
		if err != nil {
			return
		}
		if len(msg.Frames) != 3 || len(msg.Frames[2]) != 8 {
			slog.Debug("kv events: invalid replay request", "frames", len(msg.Frames))
			continue
		}
		id := msg.Frames[0]
		start := binary.BigEndian.Uint64(msg.Frames[2])
		for _, s := range p.since(start) {
			var sb [8]byte
			binary.BigEndian.PutUint64(sb[:], s.seq)
			if p.replay.SendMulti(zmq4.NewMsgFrom(id, []byte{}, sb[:], s.payload)) != nil {
				break
			}
		}
		_ = p.replay.SendMulti(zmq4.NewMsgFrom(id, []byte{}, endSeq, []byte{}))
	}
}
