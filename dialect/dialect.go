package dialect

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Dialect names accepted by Lookup and the --dialect flag.
const (
	// Auto asks Detect to choose from the server's answers.
	Auto = "auto"
	// VLLM is vLLM's OpenAI-compatible server (V1 engine; V0 names read).
	VLLM = "vllm"
	// SGLang is SGLang's OpenAI-compatible server.
	SGLang = "sglang"
	// LlamaCpp is llama.cpp's llama-server.
	LlamaCpp = "llamacpp"
	// OpenAI is a plain OpenAI-compatible server with none of the above.
	OpenAI = "openai"
)

// Dialect is what tracebench knows of one kind of server. Its values are
// read-only tables; take them from Lookup.
type Dialect struct {
	// Name is one of VLLM, SGLang, LlamaCpp, OpenAI.
	Name string
	// Metrics maps the server's Prometheus names to the figures the
	// client reads.
	Metrics Metrics
	// Endpoints are the server's auxiliary paths ("" when absent).
	Endpoints Endpoints
	// extras returns the request-body fields added for output length n
	// (tokens; 0 means the server's default length).
	extras func(n int) map[string]any
	// slotField names the request-body field that pins a request to a
	// server slot ("" when the server has no slots to pin).
	slotField string
	// cached picks the cached prompt tokens out of a response's counts.
	cached func(r *Raw) (int, bool)
	// flush empties the server's prefix cache (nil: no way to).
	flush flushFunc
	// flushNote says how the flush works or why there is none.
	flushNote string
	// flushLeaves names the cache a successful flush does not empty (""
	// when it empties every cache that can serve a prefix).
	flushLeaves string
	// flushHint says how to start the server so that a flush is allowed
	// and complete.
	flushHint string
	// tokenPrompts reports that completions accept a prompt of token ids.
	tokenPrompts bool
	// describe adds what the server at base says of itself beyond
	// /v1/models to info (nil: nothing more).
	describe func(ctx context.Context, hc *http.Client, base string, info *ServerInfo)
	// slots holds the facts of a server that keeps one prompt per slot
	// (nil: one paged prefix cache shared by every request).
	slots *SlotServer
}

// SlotServer holds the defaults of a server that keeps one prompt per
// slot, which a per-slot cache model takes when the run cannot tell.
type SlotServer struct {
	// Batch is the logical batch: the most prompt and decode tokens one
	// decode call takes (tokens).
	Batch int
	// HostCacheTokens is the host-memory prompt cache assumed (tokens).
	HostCacheTokens int
}

// Slots returns the facts of a per-slot server, or nil for a dialect
// whose server shares one paged prefix cache among all requests.
func (d *Dialect) Slots() *SlotServer {
	if d == nil {
		return nil
	}
	return d.slots
}

// Names lists the concrete dialects in a stable order.
func Names() []string { return []string{VLLM, SGLang, LlamaCpp, OpenAI} }

// Lookup returns the named dialect (case-insensitive). "auto" is not a
// dialect: callers resolve it with Detect first.
func Lookup(name string) (*Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case VLLM:
		return &vllm, nil
	case SGLang:
		return &sglang, nil
	case LlamaCpp, "llama.cpp", "llama-cpp":
		return &llamacpp, nil
	case OpenAI:
		return &openai, nil
	}
	return nil, fmt.Errorf("unknown dialect %q (want %s or %s)", name, Auto, strings.Join(Names(), ", "))
}

// Valid reports whether name is "auto" or a known dialect.
func Valid(name string) bool {
	_, err := Lookup(name)
	return err == nil || strings.EqualFold(strings.TrimSpace(name), Auto)
}

// BodyExtras returns the fields to add to a completions or chat request
// body asking for n output tokens (n ≤ 0: none asked), beyond the
// standard model, prompt, max_tokens, stream, stream_options and
// temperature. The map is new on every call.
func (d *Dialect) BodyExtras(n int) map[string]any {
	if d == nil || d.extras == nil {
		return nil
	}
	return d.extras(max(n, 0))
}

// SlotField names the request-body field that runs a request on a
// chosen server slot (llama.cpp: id_slot), "" when the dialect has none.
func (d *Dialect) SlotField() string {
	if d == nil {
		return ""
	}
	return d.slotField
}

// TokenPrompts reports whether the server's completions endpoint accepts
// a prompt of token ids (vLLM, SGLang and llama.cpp do; a plain
// OpenAI-compatible server is not assumed to).
func (d *Dialect) TokenPrompts() bool { return d != nil && d.tokenPrompts }

// CanFlush reports whether the dialect has a way to empty a server's
// prefix cache.
func (d *Dialect) CanFlush() bool { return d != nil && d.flush != nil }

// FlushLeaves names the cache that a successful Flush leaves as it was
// ("" when Flush empties every cache that can serve a prefix).
func (d *Dialect) FlushLeaves() string { return d.flushLeaves }

// FlushHint says, in one clause, how to start the server so that Flush
// is allowed and complete ("" when no start option makes it so).
func (d *Dialect) FlushHint() string { return d.flushHint }

// Default is the dialect assumed where none is set (a client or scraper
// built without one, a mock server without Options.Dialect, a Run with no
// backend to ask): vLLM's, the names the mock server exports natively.
const Default = VLLM

// OrDefault returns d, or the Default dialect when d is nil.
func OrDefault(d *Dialect) *Dialect {
	if d != nil {
		return d
	}
	return &vllm
}
