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
	last    time.Time // previous token emission
	reason  string
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
		rs.cached = ev.CachedTokens
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

// usage is the response's usage, with the cached prompt tokens where the
// mock's dialect puts them.
func (rs *response) usage() usage {
	p := len(rs.g.prompt)
	u := usage{PromptTokens: p, CompletionTokens: rs.out, TotalTokens: p + rs.out}
	switch rs.s.opts.Dialect {
	case dialect.LlamaCpp:
		u.timings = &timings{CacheN: rs.cached, PromptN: p - rs.cached}
	case dialect.OpenAI:
	default:
		u.PromptTokensDetails = &tokenDetails{CachedTokens: rs.cached}
	}
	return u
}

// stream writes server-sent events, flushing after each step's chunks.
func (rs *response) stream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	enc := newEncoder(rs.g.chat, rs.id, rs.s.created, rs.g.model)
	cut := rs.s.faults.disconnectAfter()
	var buf []byte
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
	buf = buf[:0]
	if rs.g.includeUsage {
		buf = enc.usage(buf, rs.usage())
	}
	buf = append(buf, sseDone...)
	_, _ = w.Write(buf)
	_ = rc.Flush()
}

// encode appends the chunks of the pending events, observing them at the
// current time (the chunks are written right after). With limit ≥ 0 it
// stops once limit tokens were sent, so a cut after limit tokens happens
// there even when several steps' events were pending.
func (rs *response) encode(enc *encoder, buf []byte, limit int) []byte {
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
		if first && rs.g.chat {
			buf = enc.role(buf)
		}
		reason := ""
		if ev.Finished {
			reason = string(ev.Reason)
		}
		buf = enc.token(buf, rs.text(ev), reason)
	}
	return buf
}

// whole collects the generation and writes one JSON response.
func (rs *response) whole(w http.ResponseWriter, r *http.Request) {
	var sb strings.Builder
	for rs.reason == "" {
		if !rs.next(r) {
			return
		}
		now := time.Now()
		for _, ev := range rs.evs {
			rs.observe(ev, now)
			if ev.HasToken {
				sb.WriteString(rs.text(ev))
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rs.body(sb.String()))
}

// body builds the non-streamed response object.
func (rs *response) body(text string) any {
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
	} else {
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
}
