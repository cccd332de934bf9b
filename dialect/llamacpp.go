package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// llamacpp is llama.cpp's llama-server. Sources: its server README
// (/health, /tokenize, /detokenize, /slots and POST
// /slots/{id}?action=erase, the llamacpp: metrics of --metrics, the
// timings object of every response) and b7099's responses: cached prompt
// tokens are timings.cache_n (prompt_tokens_details.cached_tokens came
// in later releases), and llamacpp:prompt_tokens_total counts only the
// prompt tokens it computed, so it is no query counter and the server
// exports no prefix hits.
var llamacpp = Dialect{
	Name: LlamaCpp,
	Metrics: Metrics{
		Prefix:             "llamacpp:",
		Running:            []string{"llamacpp:requests_processing"},
		Waiting:            []string{"llamacpp:requests_deferred"},
		KVUsage:            []string{"llamacpp:kv_cache_usage_ratio"},
		PromptTokens:       []string{"llamacpp:prompt_tokens_total"},
		PromptComputedOnly: true,
		GenerationTokens:   []string{"llamacpp:tokens_predicted_total"},
	},
	Endpoints: Endpoints{Health: "/health", Models: "/v1/models", Metrics: "/metrics", Slots: "/slots",
		Tokenize: "/tokenize", Detokenize: "/detokenize", ApplyTemplate: "/apply-template", Native: "/completion",
		tokenizeBody: func(_, text string) any {
			return map[string]any{"content": text, "add_special": false}
		},
		detokenizeBody: func(_ string, ids []int) any { return map[string]any{"tokens": ids} },
		readTokens:     tokensField, readText: textField("content")},
	extras: func(int) map[string]any {
		// cache_prompt is on by default since b4000-odd; sent so older
		// servers reuse slots too. max_tokens bounds the length.
		return map[string]any{"ignore_eos": true, "cache_prompt": true}
	},
	slotField:    "id_slot",
	cached:       llamacppCached,
	flush:        eraseSlots,
	tokenPrompts: true,
	describe:     describeSlots,
	slots:        &SlotServer{Batch: llamaNBatch, HostCacheTokens: llamaHostCacheTokens},
	flushNote:    "POST /slots/{id}?action=erase for every slot, which llama-server allows only with --slot-save-path; its host-memory prompt cache (--cache-ram) is not erased",
	// b7099's erase (server.cpp, SERVER_TASK_TYPE_SLOT_ERASE) calls
	// clear_slot, which drops the slot's KV and tokens only; the host
	// prompt cache (server_prompt_cache) is written and read when a slot
	// is picked by LRU (get_available_slot) and no endpoint empties it.
	flushLeaves: "the host-memory prompt cache (--cache-ram, on by default)",
	flushHint:   "start llama-server with --slot-save-path DIR and --cache-ram 0",
}

// llama.cpp server defaults (llama-server b7099 --help).
const (
	// llamaNBatch is the logical batch (-b, --batch-size): the most prompt
	// and decode tokens one llama_decode call of the server takes.
	llamaNBatch = 2048
	// llamaHostCacheTokens is the host prompt cache assumed when the run
	// cannot tell (--cache-ram 8192 MiB; its size in tokens depends on the
	// model's KV bytes per token, which the client cannot see).
	llamaHostCacheTokens = 1 << 20
)

// describeSlots reads the server's slots and context per slot from GET
// /props (left 0 when it does not answer).
func describeSlots(ctx context.Context, hc *http.Client, base string, info *ServerInfo) {
	var props struct {
		TotalSlots int `json:"total_slots"`
		Settings   struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if b, _, err := get(ctx, hc, base, "/props"); err == nil && json.Unmarshal(b, &props) == nil {
		info.Slots, info.SlotContext = props.TotalSlots, props.Settings.NCtx
	}
}

// llamacppCached prefers the OpenAI field (newer releases) and falls back
// to timings.cache_n (b7099 and older).
func llamacppCached(r *Raw) (int, bool) {
	if r.HasDetailsCached {
		return r.DetailsCached, true
	}
	return r.CacheN, r.HasTimings
}

// Slot is one entry of llama.cpp's GET /slots.
type Slot struct {
	// ID is the slot number.
	ID int `json:"id"`
	// Processing reports a request in the slot.
	Processing bool `json:"is_processing"`
}

// Slots returns the slots of the llama-server at base.
func Slots(ctx context.Context, hc *http.Client, base string) ([]Slot, error) {
	b, _, err := get(ctx, hc, base, "/slots")
	if err != nil {
		return nil, err
	}
	var s []Slot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("GET %s/slots: decode: %w", Base(base), err)
	}
	return s, nil
}

// eraseSlots erases every slot's cached prompt.
func eraseSlots(ctx context.Context, hc *http.Client, base string) error {
	slots, err := Slots(ctx, hc, base)
	if err != nil {
		return err
	}
	for _, s := range slots {
		if _, err := post(ctx, hc, base, "/slots/"+strconv.Itoa(s.ID)+"?action=erase", struct{}{}); err != nil {
			return err
		}
	}
	return nil
}
