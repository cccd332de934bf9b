package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/internal/minheap"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// Options configure a virtual-time Run: N copies of the mock engine
// driven by an event loop over arrivals and engine steps, with no HTTP
// and no sleeping.
type Options struct {
	replay.Common
	// Engines configures one simulated Backend each.
	Engines []engine.Config
	// Tokenizer turns text prompts into token ids (default whitespace,
	// the mock server's default); block-id and token-id prompts are used
	// as they are (token-exact).
	Tokenizer tokenizer.Tokenizer
	// BatchWindow is how long an idle engine with static batching waits
	// after a Request reaches it before its first step, so Requests sent
	// close together start as one batch, as the mock server's driver does
	// (default DefaultStaticBatchWindow; negative: no wait). Engines with
	// continuous batching never wait, like the mock.
	BatchWindow time.Duration
	// Cut ends the run as a measured one ended (zero: it runs to the
	// end, and no client gives up).
	Cut Cut
	// KVEventDelay is the lag between an engine step's KV events and the
	// moment a KV-event router (precise-prefix) sees them (default 0:
	// visible at the step's start, when vLLM publishes them).
	KVEventDelay time.Duration
}

// DefaultStaticBatchWindow is the simulated static batching gather
// window: the mock server's default (mockserver.DefaultBatchWindow, 5 ms).
const DefaultStaticBatchWindow = 5 * time.Millisecond

// BackendNames returns the Backend names of an n-engine simulation.
func BackendNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("sim://%d", i)
	}
	return out
}

// simBackend is one simulated engine and its step in progress.
type simBackend struct {
	e    *engine.Engine
	busy bool
	step engine.Step
	// events is the array of the last step's events, reused by the next.
	events []engine.Event
	// window is the gather wait before a step from idle (static batching).
	window time.Duration
	// blockSize is the engine's tokens per KV block.
	blockSize int
}

// simReq is a Request inside an engine.
type simReq struct {
	req       *traces.Request
	res       *results.Result
	stats     client.TokenStamps
	clock     time.Duration
	promptLen int
	pd        *simPD // nil unless the Request is disaggregated
	// gone marks a Request its simulated client gave up (first-byte
	// timeout) or a stop cut: its Result is out, later events are dropped.
	gone bool
}

// simulator is the event loop's state.
type simulator struct {
	o    Options
	d    *replay.Dispatcher
	bs   []simBackend
	live simLive
	now  time.Duration
	// g paces the Source's Requests (sessions); next is its next one.
	g        *replay.Gate
	next     *traces.Request
	render   []int    // the last block-id prompt's rendered tokens (reused)
	keys     []uint64 // the last block-id prompt's block keys (reused)
	counters *replay.Counters
	rates    replay.RateMeter
	// ctx is the Run's context; halt is set when it was found canceled
	// right after an OnResult call, so a hook that asks the Run to stop
	// ends it at that Result rather than events later.
	ctx  context.Context
	halt bool
	kv   *simKV // nil unless the Router reads KV events
	// transfers are the decodes waiting for their KV transfer.
	transfers minheap.Heap[simTransfer]
	// deadlines are the first-byte deadlines of Cut (empty without one).
	deadlines minheap.Heap[deadline]
	// vocab spells the engines' generated ids as text (answers fed back).
	vocab tokenizer.OutputVocab
}

// Run runs the Source against simulated engines in virtual time and
// returns the stop record; Stop.Elapsed is virtual. A canceled ctx stops
// the run (reason StopInterrupted): checked after every Result handed to
// OnResult, so a hook that cancels ctx stops the run at that Result, and
// otherwise every 1,024 events.
func Run(ctx context.Context, o Options) (results.Stop, error) {
	s, err := newSimulator(o)
	if err != nil {
		return results.Stop{Reason: results.StopError(err)}, err
	}
	s.ctx = ctx
	reason, err := s.loop(ctx)
	extra := replay.MergeExtra(s.extra(), s.rates.Extra())
	var notes []string
	if s.kv != nil {
		var kvx map[string]float64
		kvx, notes = replay.KVExtra(s.kv.idx, nil)
		extra = replay.MergeExtra(extra, kvx)
	}
	extra = replay.MergeExtra(extra, s.d.PolicyExtra())
	extra = replay.MergeExtra(extra, s.g.Extra())
	return results.Stop{Reason: reason, Elapsed: s.now, Extra: extra, Notes: notes}, err
}

func newSimulator(o Options) (*simulator, error) {
	if len(o.Engines) == 0 {
		return nil, errors.New("simulate: no engines")
	}
	if o.Tokenizer == nil {
		o.Tokenizer = tokenizer.Whitespace{}
	}
	if err := o.Sessions.Validate(); err != nil {
		return nil, err
	}
	s := &simulator{o: o, counters: o.Counters, vocab: tokenizer.NewOutputVocab(o.Tokenizer)}
	if s.counters == nil {
		s.counters = &replay.Counters{}
	}
	for i, cfg := range o.Engines {
		if len(cfg.OutputVocab) == 0 {
			// As the mock server does: generated text tokenises back to
			// the generated ids, so an answer fed back hits its blocks.
			cfg.OutputVocab = s.vocab.IDs()
		}
		e, err := engine.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("simulated backend %d: %w", i, err)
		}
		s.bs = append(s.bs, simBackend{e: e, window: gatherWindow(cfg, o.BatchWindow), blockSize: cfg.BlockSize})
	}
	kv, err := bindSimKV(o.Router, s.bs, o.KVEventDelay)
	if err != nil {
		return nil, err
	}
	s.kv = kv
	s.d = replay.NewDispatcher(o.Router, o.Queue, o.Capacity, o.MaxInflight, BackendNames(len(o.Engines)))
	if o.PD != nil {
		if err := o.PD.Validate(len(o.Engines)); err != nil {
			return nil, err
		}
		s.d.SetPD(o.PD)
	}
	return s, nil
}

// loop advances virtual time to the next arrival or step end until the
// Source is exhausted and every engine is idle.
func (s *simulator) loop(ctx context.Context) (results.StopReason, error) {
	s.g = replay.NewGate(s.o.Source, s.o.Sessions)
	if err := s.fetch(); err != nil {
		return results.StopError(err), err
	}
	for n := 0; ; n++ {
		if s.halt || n%1024 == 0 && ctx.Err() != nil {
			return results.StopInterrupted, nil
		}
		b, tEng := s.nextStep()
		if tc, ok := s.nextCut(); ok && s.cutFirst(tc, b, tEng) {
			if s.cut(tc) {
				return results.StopAsMeasured, nil
			}
			continue
		}
		if tx, ok := s.nextTransfer(); ok && (b < 0 || tx <= tEng) && (s.next == nil || tx <= s.next.Arrival) {
			s.startDecode()
			if err := s.pump(); err != nil {
				return results.StopError(err), err
			}
			continue
		}
		switch {
		case s.next == nil && b < 0:
			if s.d.Held() > 0 {
				return "error: requests held with nothing in flight", errors.New("simulate: the queue holds requests but released none with every backend idle")
			}
			if s.g.Pending() {
				err := errors.New("simulate: session turns wait for requests that were never sent (a cycle of After)")
				return results.StopError(err), err
			}
			return results.StopDone, nil
		case s.next != nil && (b < 0 || s.next.Arrival < tEng):
			if err := s.arrive(); err != nil {
				return results.StopError(err), err
			}
		default:
			if err := s.finishStep(b); err != nil {
				return results.StopError(err), err
			}
		}
	}
}

// cutFirst reports whether a cut event at tc comes before the next
// arrival, step end and KV transfer (b < 0: no step running).
func (s *simulator) cutFirst(tc time.Duration, b int, tEng time.Duration) bool {
	if tx, ok := s.nextTransfer(); ok && tx < tc {
		return false
	}
	if b >= 0 && tEng < tc {
		return false
	}
	if s.next != nil && s.next.Arrival < tc {
		return false
	}
	// With nothing left to run the simulation is done: a later stop time
	// or a deadline of a finished request cuts nothing.
	_, transfer := s.nextTransfer()
	return b >= 0 || s.next != nil || transfer
}

// nextStep returns the busy backend whose step ends first (-1: none).
func (s *simulator) nextStep() (int, time.Duration) {
	best, t := -1, time.Duration(0)
	for i := range s.bs {
		if s.bs[i].busy && (best < 0 || s.bs[i].step.End() < t) {
			best, t = i, s.bs[i].step.End()
		}
	}
	return best, t
}

// fetch sets s.next to the gate's next Request (nil: none known yet).
func (s *simulator) fetch() error {
	s.next = s.g.Peek(s.now)
	if err := s.g.Err(); err != nil {
		return fmt.Errorf("read requests: %w", err)
	}
	return nil
}

// arrive hands every Request arriving now to the Dispatcher.
func (s *simulator) arrive() error {
	s.now = max(s.now, s.next.Arrival)
	for s.next != nil && s.next.Arrival <= s.now {
		req := s.next
		s.g.Pop()
		s.counters.Arrived.Add(1)
		if rej := s.d.Arrive(s.now, req); rej != nil {
			s.emit(rej)
		}
		if err := s.fetch(); err != nil {
			return err
		}
		if s.halt {
			return nil
		}
	}
	return s.pump()
}

// pump dispatches what the Dispatcher releases into the engines. With
// nothing held there is nothing to release, so the Queue and the Backend
// snapshot are skipped (most calls, one per engine step, are such).
func (s *simulator) pump() error {
	if s.d.Held() > 0 {
		ds, err := s.d.Pump(s.now)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if s.dispatch(d); s.halt {
				return nil
			}
		}
	}
	// Start idle engines only now, so Requests released together (a
	// multi-bin batch) start together, as the mock's batch window does.
	for i := range s.bs {
		if !s.bs[i].busy && !s.bs[i].e.Idle() {
			s.wake(i)
		}
	}
	for _, e := range s.d.TakeEvents(s.now) {
		if s.o.Results != nil {
			_ = s.o.Results.WriteEvent(&e)
		}
		if s.o.OnEvent != nil {
			s.o.OnEvent(&e)
		}
	}
	s.counters.Held.Store(int64(s.d.Held()))
	return nil
}
