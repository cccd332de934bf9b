package policies

import (
	"github.com/tracebench/tracebench/traces"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// hfFixture is a small Hugging Face tokenizer.json of the tokenizer
// package's tests.
const hfFixture = "../traces/tokenizer/testdata/hf/llama3.json"

// TestPrecisePrefixHFTokenizer: with tokenizer=hf:PATH a text prompt is
// hashed as the token ids that tokenizer gives, so the blocks a server
// with that tokenizer reports are found.
func TestPrecisePrefixHFTokenizer(t *testing.T) {
	enc, err := tokenizer.Load(tokenizer.HFPrefix + hfFixture)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 8)
	ids := enc.Encode(text)
	if len(ids) < 33 {
		t.Fatalf("fixture gives %d tokens, want ≥ 33", len(ids))
	}
	r := mustRouter(t, "precise-prefix", Params{"tokenizer": traces.ParamString(tokenizer.HFPrefix + hfFixture), "hashes": traces.ParamString("engine")}, 1)
	idx, err := r.(KVEventRouter).BindKVEvents(2)
	if err != nil {
		t.Fatal(err)
	}
	blocks := (len(ids) - 1) / 16
	idx.Apply(1, kvevents.Decoded{Batch: kvevents.Batch{Events: []kvevents.Event{{Kind: kvevents.Stored,
		Hashes: kvevents.ChainHashes(nil, ids[:blocks*16], 16, 0), Tokens: ids[:blocks*16], BlockSize: 16}}}})
	ch := mustPick(t, r, textReq("a", text, len(ids)), State{Backends: fleet(0, 0)})
	if ch.Backend != 1 || ch.PredictedHitTokens != blocks*16 {
		t.Errorf("picked %d predicting %d tokens, want 1 and %d", ch.Backend, ch.PredictedHitTokens, blocks*16)
	}
	if _, err := NewRouter("precise-prefix", Params{"tokenizer": traces.ParamString("hf:/nonexistent.json")}, nil); err == nil ||
		!strings.Contains(err.Error(), "parameter tokenizer") {
		t.Errorf("missing tokenizer file: err %v", err)
	}
}

// TestApproxPrefixHFTokenizer: with a tokenizer, approx-prefix hashes
// text as token ids in chunks of chunk_chars/4 tokens, and its predicted
// hit counts those tokens.
func TestApproxPrefixHFTokenizer(t *testing.T) {
	p := Params{"tokenizer": traces.ParamString(tokenizer.HFPrefix + hfFixture), "chunk_chars": traces.ParamInt(16)}
	r := mustRouter(t, "approx-prefix", p, 1)
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 8)
	first := mustPick(t, r, textReq("a", text, 0), State{Backends: fleet(0, 0)})
	second := mustPick(t, r, textReq("b", text+"And more.", 0), State{Backends: fleet(0, 0)})
	enc, _ := tokenizer.Load(tokenizer.HFPrefix + hfFixture)
	want := len(enc.Encode(text)) / 4 * 4
	if second.Backend != first.Backend || second.PredictedHitTokens != want {
		t.Errorf("second request on %d (first %d) predicting %d tokens, want the same backend and %d",
			second.Backend, first.Backend, second.PredictedHitTokens, want)
	}
	if _, err := NewRouter("approx-prefix", Params{"tokenizer": traces.ParamString("nope")}, nil); err == nil ||
		!strings.Contains(err.Error(), "parameter tokenizer") {
		t.Errorf("unknown tokenizer: err %v", err)
	}
}
