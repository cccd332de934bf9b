package mockserver

import (
	"encoding/json"
	"github.com/tracebench/tracebench/dialect"
	"net/http"
	"strings"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// response streams (or collects) one request's events into its HTTP
// response and observes the latency histograms at the emission times.
type response struct {
	s       *Server
	g       *generation
	id      string
	f       *inflight
	arrival time.Time
	host    string // host:port the client reached (kv_transfer_params)
	evs     []engine.Event
	cached  int
	out     int
	// slot is the engine slot that holds the request (−1: none known).
	slot int
	// reasoning counts the output tokens that were reasoning.
	reasoning int
	last      time.Time // previous token emission
	reason    string
	// admitted and first are the wall times of admission and of the
	// first token (for vLLM's prefill, decode and inference times).
	admitted, first time.Time
}

// next waits for the next batch of events; false when the client left
// or the server closed.
func (rs *response) next(r *http.Request) bool {
	select {
	case <-r.Context().Done():
		rs.s.drv.abort(rs.id)
		return false
	case <-rs.s.stopped:
		rs.s.drv.abort(rs.id)
		return false
	case <-rs.f.signal:
		rs.evs = rs.f.take(rs.evs)
		return true
	}
}

// observe records an event's admission and its token's emission at now.
func (rs *response) observe(ev engine.Event, now time.Time) {
	m := rs.s.met
	if ev.Admitted {
		if rs.admitted.IsZero() {
			rs.admitted = now
		}
		rs.cached, rs.slot = ev.CachedTokens, ev.Slot
		m.queue.Observe(rs.s.modelTimeToWall(ev.QueueTime).Seconds())
	}
	if ev.HasToken {
		if rs.out == 0 {
			rs.first = now
			m.ttft.Observe(now.Sub(rs.arrival).Seconds())
		} else {
			m.itl.Observe(now.Sub(rs.last).Seconds())
		}
		rs.out, rs.last = rs.out+1, now
		if ev.Reasoning {
			rs.reasoning++
		}
	}
	if ev.Finished {
		rs.reason = string(ev.Reason)
		m.e2e.Observe(now.Sub(rs.arrival).Seconds())
		m.v1.finish(len(rs.g.prompt), rs.out, rs.g.maxTokens, rs.admitted, rs.first, now)
	}
}

// text returns the text of an event's token ("" for end-of-sequence).
func (rs *response) text(ev engine.Event) string {
	if ev.Finished && ev.Reason == engine.FinishStop {
		return ""
	}
	return rs.s.vocab.Word(ev.Token)
}

// promptTimings is llama.cpp's count of the prompt's tokens reused from
// the cache and computed.
func (rs *response) promptTimings() timings {
	return timings{CacheN: rs.cached, PromptN: len(rs.g.prompt) - rs.cached}
}

// usage is the response's usage, with the cached prompt tokens where the
// mock's dialect puts them.
func (rs *response) usage() usage {
	p := len(rs.g.prompt)
	u := usage{PromptTokens: p, CompletionTokens: rs.out, TotalTokens: p + rs.out}
	switch rs.s.opts.Dialect {
	case dialect.LlamaCpp:
		t := rs.promptTimings()
		u.timings = &t
	case dialect.OpenAI:
	default:
		u.PromptTokensDetails = &tokenDetails{CachedTokens: rs.cached}
	}
	rs.reasoningUsage(&u)
	return u
}

// reasoningUsage adds the reasoning tokens of a request that reasoned
// where the dialect reports them: OpenAI in
// completion_tokens_details.reasoning_tokens, SGLang in a top-level
// usage.reasoning_tokens (python/sglang/srt/entrypoints/openai/
// usage_processor.py); vLLM's and llama.cpp's chat usage has no such
// figure, so the client counts the reasoning chunks.
func (rs *response) reasoningUsage(u *usage) {
	if rs.reasoning == 0 {
		return
	}
	switch rs.s.opts.Dialect {
	case dialect.OpenAI:
		u.CompletionTokensDetails = &completionDetails{ReasoningTokens: rs.reasoning}
	case dialect.SGLang:
		n := rs.reasoning
		u.ReasoningTokens = &n
	}
}

// writer is the chunk writer of the response's API.
func (rs *response) writer() chunkWriter {
	if rs.g.responses {
		return &responsesWriter{rs: rs}
	}
	if rs.g.native {
		return nativeWriter{rs: rs}
	}
	return completionsWriter{e: newEncoder(rs.g.chat, rs.id, rs.s.created, rs.g.model), rs: rs}
}

// stream writes server-sent events, flushing after each step's chunks.
func (rs *response) stream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	enc := rs.writer()
	buf := enc.begin(nil)
	if len(buf) > 0 {
		_, _ = w.Write(buf)
	}
	_ = rc.Flush()
	cut := rs.s.faults.disconnectAfter()
	for rs.reason == "" {
		if !rs.next(r) {
			return
		}
		buf = rs.encode(enc, buf[:0], cut)
		if len(buf) == 0 {
			continue
		}
		if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
			rs.s.drv.abort(rs.id)
			return
		}
		if cut >= 0 && rs.out >= cut && rs.reason == "" {
			rs.s.drv.abort(rs.id)
			if conn, _, err := rc.Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
	}
	buf = enc.end(buf[:0])
	_, _ = w.Write(buf)
	_ = rc.Flush()
}

// encode appends the chunks of the pending events, observing them at the
// current time (the chunks are written right after). With limit ≥ 0 it
// stops once limit tokens were sent, so a cut after limit tokens happens
// there even when several steps' events were pending.
func (rs *response) encode(enc chunkWriter, buf []byte, limit int) []byte {
	now := time.Now()
	for _, ev := range rs.evs {
		if limit >= 0 && rs.out >= limit {
			break
		}
		first := rs.out == 0
		rs.observe(ev, now)
		if !ev.HasToken {
			continue
		}
		t := genToken{text: rs.text(ev), id: ev.Token, first: first, reasoning: ev.Reasoning, reasoningEnd: ev.ReasoningEnd}
		if ev.Finished {
			t.finish = string(ev.Reason)
		}
		buf = enc.token(buf, t)
	}
	return buf
}

// whole collects the generation and writes one JSON response.
func (rs *response) whole(w http.ResponseWriter, r *http.Request) {
	var reasoning, text strings.Builder
	ended := false
	for rs.reason == "" {
		if !rs.next(r) {
			return
		}
		now := time.Now()
		for _, ev := range rs.evs {
			rs.observe(ev, now)
			switch {
			case ev.HasToken && ev.Reasoning:
				reasoning.WriteString(rs.text(ev))
				ended = ended || ev.ReasoningEnd
			case ev.HasToken:
				text.WriteString(rs.text(ev))
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // <think> as the servers write it
	if rs.g.responses {
		_ = enc.Encode(rs.responsesBody(reasoning.String(), text.String()))
		return
	}
	if rs.g.native {
		_ = enc.Encode(rs.nativeFinal(nativeText(reasoning.String(), ended, text.String())))
		return
	}
	_ = enc.Encode(rs.body(reasoning.String(), ended, text.String()))
}

// body builds the non-streamed response object: the reasoning in the
// chat message's reasoning_content, or in the completions text between
// <think> tags (the closing one when the reasoning ended).
func (rs *response) body(reasoning string, ended bool, text string) any {
	type choice struct {
		Index        int        `json:"index"`
		Text         *string    `json:"text,omitempty"`
		Message      *chatReply `json:"message,omitempty"`
		Logprobs     any        `json:"logprobs"`
		FinishReason string     `json:"finish_reason"`
		StopReason   any        `json:"stop_reason"`
	}
	c := choice{FinishReason: rs.reason}
	obj := "text_completion"
	if rs.g.chat {
		obj = "chat.completion"
		c.Message = &chatReply{Role: "assistant", Content: text, ToolCalls: []any{}}
		if rs.reasoning > 0 {
			c.Message.ReasoningContent = &reasoning
		}
	} else {
		if rs.reasoning > 0 {
			text = tagged(genToken{text: reasoning, first: true, reasoningEnd: ended}) + text
		}
		c.Text = &text
	}
	u := rs.usage()
	var kv *kvTransferReply
	if rs.g.kv != nil && rs.g.kv.DoRemoteDecode {
		kv = rs.s.kvReply(rs.g, rs.host)
	}
	return struct {
		ID         string           `json:"id"`
		Object     string           `json:"object"`
		Created    int64            `json:"created"`
		Model      string           `json:"model"`
		Choices    []choice         `json:"choices"`
		Usage      usage            `json:"usage"`
		Timings    *timings         `json:"timings,omitempty"`
		KVTransfer *kvTransferReply `json:"kv_transfer_params,omitempty"`
	}{rs.id, obj, rs.s.created, rs.g.model, []choice{c}, u, u.timings, kv}
}

// chatReply is a non-streamed chat message, fields in vLLM's order.
type chatReply struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []any  `json:"tool_calls"`
	// ReasoningContent is the reasoning of a request that reasoned.
	ReasoningContent *string `json:"reasoning_content,omitempty"`
}
