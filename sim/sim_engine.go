package sim

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// dispatch adds one Request to its engine; pump starts the idle engines'
// steps once every Request released at this instant is in.
func (s *simulator) dispatch(d replay.Dispatch) {
	s.counters.Sent.Add(1)
	s.counters.InFlight.Add(1)
	res := replay.NewResult(d.Seq, d.Req, d.Backend, d.Released)
	res.PredictedHitTokens = d.PredictedHitTokens
	res.Sent, res.Headers = s.now, s.now
	res.Answer = s.g.AnswerFor(d.Req)
	if d.Prefill != nil {
		s.dispatchPrefill(d, res)
		return
	}
	s.addToEngine(d.Req, res, d.Backend, 0, nil)
}

// addToEngine adds req (Result res) to backend b's engine: the whole
// Request, or with pd its prefill (one token), or with remote > 0 its
// decode after a transfer of remote prompt tokens.
func (s *simulator) addToEngine(req *traces.Request, res *results.Result, b, remote int, pd *simPD) {
	out := max(req.OutputTokens, 1)
	if pd != nil && pd.phase == phasePrefill {
		out = 1
	}
	bk := &s.bs[b]
	id := strconv.FormatInt(res.Seq, 10)
	if pd != nil {
		id += pd.phase
	}
	er := &engine.Request{ID: id, Tag: int64(s.live.next()), MaxTokens: out, MinTokens: out, IgnoreEOS: true,
		LoRA: req.LoRA, RemoteTokens: remote, Slot: req.Slot}
	s.setPrompt(er, req, bk)
	if req.LoRA != "" {
		// As the mock server does for an adapter's requests: the adapter
		// salts the block hash chain, so adapters never share blocks.
		er.CacheSalt = "lora:" + req.LoRA + "\x00"
	}
	if err := bk.e.Add(s.now, er); err != nil {
		s.reject(req, res, err)
		return
	}
	sr := &simReq{req: req, res: res, promptLen: len(er.PromptKeys)*bk.blockSize + len(er.Prompt), pd: pd}
	// The profile's request overhead (HTTP, tokenisation) delays every
	// time the client sees; the engine's work is unchanged.
	over := s.o.Engines[b].RequestOverhead
	sr.stats = client.NewTokenStamps(res, func() time.Duration { return sr.clock + over })
	if s.d.WantsTokens() {
		sr.stats.OnTokens(func(n int) { s.d.Tokens(sr.clock, req, n) })
	}
	tag := er.Tag
	s.live.put(sr)
	if pd == nil {
		s.watch(sr, tag)
	}
}

// setPrompt gives er the prompt of r on backend b: its token ids, else a
// block-id prompt as the keys of its leading KV blocks and its remaining
// tokens when the engine need not see every token (the same cache hits as
// rendering it, without spelling and hashing its tokens), else rendered,
// else its tokenised text. A block-id prompt lives in buffers reused for
// the next one (the engine copies what it is given).
func (s *simulator) setPrompt(er *engine.Request, r *traces.Request, b *simBackend) {
	if len(r.TokenIDs) == 0 && len(r.BlockIDs) > 0 && !b.e.KeepsTokens() {
		s.keys, s.render = traces.AppendPromptKeys(s.keys[:0], s.render[:0], r, b.blockSize)
		er.PromptKeys, er.Prompt = s.keys, s.render
		er.KeyRun = traces.PromptKeyRun(r, b.blockSize)
		return
	}
	er.Prompt = s.promptTokens(r)
}

// promptTokens renders the prompt token-exact, else tokenises its text.
func (s *simulator) promptTokens(r *traces.Request) []int {
	if len(r.TokenIDs) > 0 {
		return r.TokenIDs
	}
	if s.render = traces.AppendPromptTokens(s.render[:0], r); len(s.render) > 0 {
		return s.render
	}
	return s.o.Tokenizer.Encode(traces.PromptText(r))
}

// reject finishes a Request the engine refused (prompt too long) the way
// vLLM answers it: HTTP 400.
func (s *simulator) reject(req *traces.Request, res *results.Result, err error) {
	res.Done, res.Status = s.now, 400
	res.ErrClass, res.Err = results.ErrHTTP4xx, err.Error()
	var le *engine.LengthError
	if !errors.As(err, &le) {
		res.Status, res.ErrClass = 500, results.ErrHTTP5xx
	}
	s.d.Done(s.now, req, res)
	s.emit(res)
}

// gatherWindow is an engine's wait before a step from idle: window (else
// DefaultStaticBatchWindow) with static batching, none with continuous.
func gatherWindow(cfg engine.Config, window time.Duration) time.Duration {
	switch {
	case cfg.Batching != engine.Static || window < 0:
		return 0
	case window == 0:
		return DefaultStaticBatchWindow
	}
	return window
}

// wake starts idle backend b on the work it was just given: at once, or
// after its gather window, modelled as an empty step the Requests
// arriving meanwhile join behind (finishStep then runs the real one).
func (s *simulator) wake(b int) {
	if w := s.bs[b].window; w > 0 {
		s.bs[b].step, s.bs[b].busy = engine.Step{Start: s.now, Duration: w}, true
		return
	}
	s.startStep(b)
}

// startStep runs backend b's next iteration from now.
func (s *simulator) startStep(b int) {
	// The last step's events were all applied: their slice is reused.
	st := s.bs[b].e.StepInto(s.now, s.bs[b].events)
	s.bs[b].events = st.Events
	s.kv.flush(b, s.now)
	s.bs[b].step, s.bs[b].busy = st, st.Duration > 0 || len(st.Events) > 0
}

// finishStep applies backend b's step at its end time, then starts the
// next one and releases what the Queue lets go.
func (s *simulator) finishStep(b int) error {
	bk := &s.bs[b]
	s.now = max(s.now, bk.step.End())
	bk.busy = false
	for i := range bk.step.Events {
		if err := s.apply(&bk.step.Events[i]); err != nil {
			return err
		}
		if s.halt {
			return nil
		}
	}
	if !bk.e.Idle() {
		s.startStep(b)
		if !bk.busy {
			return fmt.Errorf("simulated backend %d is stuck: requests wait but no step can run", b)
		}
	}
	return s.pump()
}

// apply applies one engine event at now.
func (s *simulator) apply(ev *engine.Event) error {
	sr := s.live.get(ev.Tag)
	if sr == nil {
		return fmt.Errorf("simulate: event for unknown request %s", ev.ID)
	}
	sr.clock = s.now
	if sr.gone {
		if ev.Finished {
			s.live.del(ev.Tag)
		}
		return nil
	}
	if sr.pd != nil && sr.pd.phase == phasePrefill {
		return s.applyPrefill(ev, sr)
	}
	if ev.Admitted {
		sr.res.CachedTokens = ev.CachedTokens
		sr.stats.Cached()
		if ev.Slot >= 0 { // the per-slot cache's slot, as llama.cpp's id_slot
			slot := ev.Slot
			sr.res.Slot = &slot
		}
	}
	if ev.HasToken {
		sr.stats.Token(ev.Reasoning)
		// A chat client sends the answer back, not the reasoning.
		if a := sr.res.Answer; a != nil && !ev.Reasoning {
			a.AddToken(ev.Token, s.vocab.Word(ev.Token))
		}
	}
	if ev.Finished {
		s.finish(ev, sr)
	}
	return nil
}

// finish completes a Request and feeds it back.
func (s *simulator) finish(ev *engine.Event, sr *simReq) {
	s.live.del(ev.Tag)
	sr.stats.Close()
	res := sr.res
	res.Done, res.Status = s.now+s.o.Engines[res.Backend].RequestOverhead, 200
	res.PromptTokens, res.CompletionTokens = sr.promptLen, ev.NumOutput
	if ev.Reason == engine.FinishAbort {
		res.ErrClass, res.Err = results.ErrCanceled, "aborted by the engine"
	}
	s.d.Done(s.now, sr.req, res)
	s.emit(res)
}

// emit records a finished Result and tells the gate, whose next Request
// may now be another.
func (s *simulator) emit(r *results.Result) {
	s.g.Done(r, r.Answer)
	r.Answer = nil
	s.next = s.g.Peek(s.now)
	if r.Backend >= 0 {
		s.counters.InFlight.Add(-1)
	}
	if s.o.Deliver(r, s.counters, &s.rates) {
		s.halt = s.ctx != nil && s.ctx.Err() != nil
	}
}

// extra sums the engines' counters for the stop record.
func (s *simulator) extra() map[string]float64 {
	var q, h, pre, ev float64
	for _, b := range s.bs {
		st := b.e.Stats()
		q += float64(st.PrefixQueries)
		h += float64(st.PrefixHits)
		pre += float64(st.Preemptions)
		ev += float64(st.Evictions)
	}
	return map[string]float64{results.ExtraPrefixQueries: q, results.ExtraPrefixHits: h,
		results.ExtraPreemptions: pre, results.ExtraEvictions: ev}
}
