package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
)

// classedError carries the error class decided where the error arose
// (the stream parser knows a bad payload from an error frame).
type classedError struct {
	class string
	err   error
}

func (e *classedError) Error() string { return e.err.Error() }
func (e *classedError) Unwrap() error { return e.err }

func classed(class string, format string, a ...any) error {
	return &classedError{class: class, err: fmt.Errorf(format, a...)}
}

// tokenStats accumulates the measures of one response as chunks arrive:
// stamps, chunk count, the gap distribution and usage. It keeps no
// per-token state, so memory does not grow with the output.
type tokenStats struct {
	res      *results.Result
	now      func() time.Duration
	onTokens func(n int)
	// d reads the cached prompt tokens (nil: vLLM).
	d *dialect.Dialect
	// salt is the prompt tokens a salt added, taken off the usage counts.
	salt int
	// responses reads the events of the Responses API instead of
	// completions chunks.
	responses bool
	// native reads the results of llama.cpp's /completion.
	native bool
	// tags, when set, reads reasoning between <think> tags in the
	// content (Options.ReasoningTags).
	tags     *thinkTags
	last     time.Duration
	gaps     gapBins
	stalls   stalls
	streamed int  // output tokens counted from content chunks
	usage    bool // a usage object was seen
	cached   bool // some chunk carried a cached-token count
	finished bool // a finish_reason was seen
	// reasoning is the tokens counted from reasoning chunks; usageReason
	// the usage's reasoning_tokens, valid when usageReasonOK.
	reasoning     int
	usageReason   int
	usageReasonOK bool
}

// chunk applies one chunk: its tokens first (stamped now), then usage,
// so a chunk carrying both counts its tokens from the usage delta.
func (s *tokenStats) chunk(c chunkInfo) { s.split(c, c.reasoning, c.content) }

// chunkText applies one chunk whose content text is text, split at
// <think> tags when s.tags is set.
func (s *tokenStats) chunkText(c chunkInfo, text string) {
	if s.tags == nil {
		s.chunk(c)
		return
	}
	cut := s.tags.feed(text)
	if cut.retro {
		// The text taken as output so far was reasoning.
		s.reasoning, s.res.FirstOutput = s.streamed, 0
	}
	s.split(c, c.reasoning || cut.reasoning, cut.output)
}

// split applies chunk c, which carries reasoning text, output text or
// both (or neither: a role, usage or finish chunk).
func (s *tokenStats) split(c chunkInfo, reasoning, output bool) {
	if reasoning || output {
		s.token(c.usage, reasoning, output)
	}
	if c.usage != nil || c.timings != nil {
		s.tokens(c)
	}
	if c.timings != nil {
		s.res.Server = serverTimings(c.timings)
	}
	if c.slot != nil {
		id := *c.slot
		s.res.Slot = &id
	}
	if c.finished {
		s.finished = true
	}
}

// tokens applies a chunk's usage and timings through the dialect: usage
// sets the prompt and completion counts, and the cached prompt tokens
// come from wherever the dialect puts them (usage details, llama.cpp's
// timings.cache_n).
func (s *tokenStats) tokens(c chunkInfo) {
	raw := c.raw()
	s.usage = s.usage || raw.HasUsage
	u := dialect.OrDefault(s.d).Usage(&raw)
	if raw.HasUsage || raw.HasTimings && !s.usage {
		s.res.PromptTokens = u.Prompt
	}
	if raw.HasUsage {
		s.res.CompletionTokens = u.Completion
	}
	if u.CachedKnown {
		s.cached, s.res.CachedTokens = true, u.Cached
	}
	if u.ReasoningKnown {
		s.usageReasonOK, s.usageReason = true, u.Reasoning
	}
}

// token stamps a chunk that carries generated text: reasoning, output
// (text outside the reasoning channel) or both. The first output stamps
// FirstOutput. It counts one token per chunk unless the chunk carries
// cumulative usage (vLLM continuous usage stats), whose
// completion_tokens delta is then the exact count; a chunk with
// reasoning counts its tokens as reasoning.
func (s *tokenStats) token(u *apiUsage, reasoning, output bool) {
	t := s.now()
	if s.res.Chunks == 0 {
		s.res.FirstToken = t
	} else {
		gap := t - s.last
		s.gaps.add(gap)
		s.stalls.add(s.last, gap, s.gaps)
		s.res.TBTMax = max(s.res.TBTMax, gap)
	}
	s.last = t
	s.res.Chunks++
	n := 1 // res.CompletionTokens is the last usage figure (0 before any)
	if u != nil && u.CompletionTokens-s.res.CompletionTokens > 1 {
		n = u.CompletionTokens - s.res.CompletionTokens
	}
	s.streamed += n
	if reasoning {
		s.reasoning += n
	}
	if output && s.res.FirstOutput == 0 {
		s.res.FirstOutput = t
	}
	if s.onTokens != nil {
		s.onTokens(n)
	}
}

// keep appends a content chunk's text to the Result's answer when a
// later turn of its session will carry it.
func (s *tokenStats) keep(info chunkInfo, data []byte) {
	if info.content && s.res.Answer != nil {
		s.res.Answer.AddChunk(data)
	}
}

// close writes the summaries into the Result.
func (s *tokenStats) close() {
	if !s.usage {
		s.res.CompletionTokens = s.streamed
	}
	s.res.NoCached = !s.cached
	s.res.Gaps = s.gaps.bins()
	s.res.Stalls = s.stalls.final(s.gaps)
	s.res.ReasoningTokens = s.reasoningTokens()
	s.unsalt()
}

// reasoningTokens is the usage's reasoning_tokens when the server
// reported it, else the count of reasoning chunks. A usage figure of 0
// beside streamed reasoning is not taken: SGLang reported 0 for chat
// completions whatever the reasoning (its usage never summed it).
func (s *tokenStats) reasoningTokens() int {
	if s.usageReasonOK && (s.usageReason > 0 || s.reasoning == 0) {
		return s.usageReason
	}
	return s.reasoning
}

// consumeSSE reads a text/event-stream response to its end. It returns
// nil after "data: [DONE]", or after a clean end of stream that followed
// a finish_reason (some servers omit [DONE]); otherwise an error, classed
// when the stream itself decided it (error frame, bad payload, broken).
func consumeSSE(body io.Reader, s *tokenStats) error {
	rd := newSSEReader(body)
	var u scanStore
	for {
		typ, data, err := rd.Next()
		if err != nil {
			return s.endOfStream(err)
		}
		if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
			return nil
		}
		if string(typ) == "error" {
			return classed(results.ErrStreamError, "error event in stream: %s", clip(data, 200))
		}
		info, text, err := s.decode(data, &u, "stream")
		if err != nil {
			return err
		}
		s.chunkText(info, text)
		s.keep(info, data)
	}
}

// endOfStream classes the way a stream ended without [DONE].
func (s *tokenStats) endOfStream(err error) error {
	switch {
	case errors.Is(err, io.EOF) && s.finished:
		return nil
	case errors.Is(err, io.EOF):
		return classed(results.ErrStreamBroken, "stream ended without [DONE] or finish_reason after %d chunks", s.res.Chunks)
	case errors.Is(err, errSSETruncated):
		return classed(results.ErrStreamBroken, "stream cut inside an event after %d chunks", s.res.Chunks)
	case errors.Is(err, errSSETooLarge):
		return classed(results.ErrBadPayload, "stream: %v", err)
	}
	return fmt.Errorf("read stream after %d chunks: %w", s.res.Chunks, err)
}

// maxJSONBody bounds a non-streamed response body (64 MiB).
const maxJSONBody = 64 << 20

// consumeJSON reads a non-streamed response: the whole body is one chunk.
func consumeJSON(body io.Reader, s *tokenStats) error {
	b, err := io.ReadAll(io.LimitReader(body, maxJSONBody+1))
	if err != nil {
		return fmt.Errorf("read response body: %w", err)
	}
	if len(b) > maxJSONBody {
		return classed(results.ErrBadPayload, "response body larger than %d bytes", maxJSONBody)
	}
	var u scanStore
	info, text, err := s.decode(b, &u, "response")
	if err != nil {
		return err
	}
	s.chunkText(info, text)
	s.keep(info, b)
	return nil
}

// decode summarises one chunk (or non-streamed body) of s's API; where
// names its place in error texts, u is storage for its token figures.
// text is its output text, read only when s splits at <think> tags (the
// fast scanner reads no text, so encoding/json decodes every chunk
// then).
func (s *tokenStats) decode(data []byte, u *scanStore, where string) (chunkInfo, string, error) {
	switch {
	case s.responses:
		return decodeEvent(data, where)
	case s.native:
		return decodeNative(data, where)
	case s.tags != nil:
		return decodeChunkText(data, where)
	}
	info, err := decodeInfo(data, u, where)
	return info, "", err
}

// decodeChunkText is decodeInfo through encoding/json only, with the
// chunk's output text.
func decodeChunkText(data []byte, where string) (chunkInfo, string, error) {
	var c apiChunk
	if err := decodeChunk(data, &c); err != nil {
		return chunkInfo{}, "", &classedError{class: results.ErrBadPayload, err: err}
	}
	if msg := c.errorText(); msg != "" {
		return chunkInfo{}, "", classed(results.ErrStreamError, "error in %s: %s", where, clipString(msg, 200))
	}
	return c.info(), c.text(), nil
}

// decodeInfo summarises one chunk: the fast scanner when it accepts,
// else encoding/json, which also reads error frames. where names the
// chunk's place in error texts. u is storage for the token figures.
func decodeInfo(data []byte, u *scanStore, where string) (chunkInfo, error) {
	if info, ok := scanChunk(data, u); ok {
		return info, nil
	}
	var c apiChunk
	if err := decodeChunk(data, &c); err != nil {
		return chunkInfo{}, &classedError{class: results.ErrBadPayload, err: err}
	}
	if msg := c.errorText(); msg != "" {
		return chunkInfo{}, classed(results.ErrStreamError, "error in %s: %s", where, clipString(msg, 200))
	}
	return c.info(), nil
}

// gapBins is a sorted list of GapBins; its length is bounded by the number
// of two-significant-digit values (90 per decade of microseconds).
type gapBins []results.GapBin

// add counts one gap, rounded to two significant digits in µs.
func (g *gapBins) add(d time.Duration) {
	v := round2(d.Microseconds())
	bins := *g
	i, hi := 0, len(bins) // the first bin with V ≥ v (called per token: no closure)
	for i < hi {
		if m := int(uint(i+hi) >> 1); bins[m].V < v {
			i = m + 1
		} else {
			hi = m
		}
	}
	if i < len(bins) && bins[i].V == v {
		bins[i].N++
		return
	}
	bins = append(bins, results.GapBin{})
	copy(bins[i+1:], bins[i:])
	bins[i] = results.GapBin{V: v, N: 1}
	*g = bins
}

// bins returns the list (nil when empty).
func (g gapBins) bins() []results.GapBin {
	if len(g) == 0 {
		return nil
	}
	return []results.GapBin(g)
}

// round2 rounds v to two significant digits, halves away from zero
// (12345 → 12000, 995 → 1000); values under 100 are already exact and
// negative values (a clock step) count as 0.
func round2(v int64) int64 {
	// Called per token: the common magnitudes divide by constants.
	switch {
	case v < 100:
		return max(v, 0)
	case v < 1_000:
		return (v + 5) / 10 * 10
	case v < 10_000:
		return (v + 50) / 100 * 100
	case v < 100_000:
		return (v + 500) / 1_000 * 1_000
	case v < 1_000_000:
		return (v + 5_000) / 10_000 * 10_000
	}
	p := int64(1)
	for v/p >= 100 {
		p *= 10
	}
	return (v + p/2) / p * p
}
