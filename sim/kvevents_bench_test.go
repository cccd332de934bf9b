package sim

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/traces"
)

// mooncakeEventsTrace is the Mooncake conversation trace, outside the
// repository.
const mooncakeEventsTrace = "../../shared/traces/mooncake/conversation_trace.jsonl"

// mooncakeEventPayloads runs the first n Mooncake requests through one
// long-context engine, back to back, and returns each step's KV events
// encoded as the mock publishes them, with the events and blocks they
// carry.
func mooncakeEventPayloads(b *testing.B, n int) (payloads [][]byte, events, blocks int) {
	b.Helper()
	if _, err := os.Stat(mooncakeEventsTrace); err != nil {
		b.Skipf("Mooncake trace not available (%v); it lives in ../shared/traces", err)
	}
	src, err := traces.Open(mooncakeEventsTrace, traces.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	cfg, _ := profile.BuiltinConfig("long-context")
	e, err := engine.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var pending []kvevents.Event
	e.OnBlockEvent(func(ev engine.BlockEvent) { pending = appendSimEvent(pending, ev) })
	now := time.Duration(0)
	for i := range n {
		r, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		_ = e.Add(now, &engine.Request{ID: strconv.Itoa(i), Prompt: traces.PromptTokens(&r),
			MaxTokens: max(r.OutputTokens, 1), IgnoreEOS: true})
	}
	for !e.Idle() {
		st := e.Step(now)
		now = st.End()
		if len(pending) == 0 {
			continue
		}
		p, err := kvevents.Encode(kvevents.Batch{TS: now.Seconds(), Events: pending})
		if err != nil {
			b.Fatal(err)
		}
		for _, ev := range pending {
			blocks += len(ev.Hashes)
		}
		events += len(pending)
		payloads, pending = append(payloads, p), nil
	}
	return payloads, events, blocks
}

// BenchmarkAbsorbMooncakeEvents is the router's cost of taking in a
// replica's KV event stream on the Mooncake trace: decoding every batch
// one long-context engine published for the first 300 requests and
// applying it to the index. It reports the cost per event and per block
// and the events and blocks one core absorbs per second.
func BenchmarkAbsorbMooncakeEvents(b *testing.B) {
	payloads, events, blocks := mooncakeEventPayloads(b, 300)
	b.ResetTimer()
	for range b.N {
		x, _ := kvevents.NewIndex(4, 16, 0)
		for _, p := range payloads {
			d, err := kvevents.Decode(p)
			if err != nil {
				b.Fatal(err)
			}
			x.Apply(1, d)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(payloads)), "batches")
	b.ReportMetric(float64(events)/float64(len(payloads)), "events/batch")
	b.ReportMetric(float64(blocks)/float64(events), "blocks/event")
	b.ReportMetric(sec*1e9/float64(events), "ns/event")
	b.ReportMetric(float64(events)/sec, "events/s")
	b.ReportMetric(float64(blocks)/sec, "blocks/s")
}

// BenchmarkLoopbackMooncakeEvents publishes the same Mooncake event
// stream over real loopback ZeroMQ (PUB with replay) to a Subscriber
// feeding an Index, as a live run does, and reports the events per
// second the pair carries end to end. Publisher and subscriber share the
// process, so the figure is a lower bound for the router side alone.
func BenchmarkLoopbackMooncakeEvents(b *testing.B) {
	payloads, events, _ := mooncakeEventPayloads(b, 300)
	batches := make([]kvevents.Batch, len(payloads))
	for i, p := range payloads {
		d, err := kvevents.Decode(p)
		if err != nil {
			b.Fatal(err)
		}
		batches[i] = d.Batch
	}
	b.ResetTimer()
	for range b.N {
		pub, err := kvevents.NewPublisher("tcp://127.0.0.1:0", "tcp://127.0.0.1:0", kvevents.PublisherOptions{})
		if err != nil {
			b.Fatal(err)
		}
		x, _ := kvevents.NewIndex(1, 16, 0)
		ctx, cancel := context.WithCancel(context.Background())
		pe, re := pub.Endpoints()
		done := kvevents.Subscribe(ctx, x, 0, pe, re, kvevents.SubscriberOptions{})
		deadline := time.Now().Add(30 * time.Second)
		for x.Stats()[0].Batches == 0 { // until the subscription reaches the PUB socket
			pub.Publish(kvevents.Batch{})
			time.Sleep(time.Millisecond)
			if time.Now().After(deadline) {
				b.Fatal("no batch reached the subscriber in 30 s")
			}
		}
		start := x.Stats()[0].Batches
		for _, bt := range batches {
			pub.Publish(bt)
		}
		for x.Stats()[0].Batches < start+int64(len(batches)) {
			time.Sleep(100 * time.Microsecond)
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d batches arrived in 30 s", x.Stats()[0].Batches-start, len(batches))
			}
		}
		cancel()
		<-done
		_ = pub.Close()
	}
	b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
}
