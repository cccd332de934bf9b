package kvevents

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vmihailenco/msgpack/v5"
)

func sampleBatch() Batch {
	return Batch{TS: 1732480000.25, DPRank: 1, Events: []Event{
		{Kind: Stored, Hashes: []uint64{1, 1 << 63}, Tokens: []int{1, 2, 3, 4}, BlockSize: 2, Medium: MediumGPU},
		{Kind: Stored, Hashes: []uint64{7}, Parent: 1 << 63, HasParent: true, Tokens: []int{5, 6}, BlockSize: 2,
			LoRAID: 3, HasLoRA: true},
		{Kind: Removed, Hashes: []uint64{1}, Medium: MediumGPU},
		{Kind: Stored, Hashes: []uint64{9}, Tokens: []int{7, 8}, BlockSize: 2, LoRAName: "sql", GroupIdx: 1},
		{Kind: Removed, Hashes: []uint64{9}, GroupIdx: 1},
		{Kind: Cleared},
	}}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, enc := range []Encoding{EncodingArray, EncodingMap} {
		b := sampleBatch()
		p, err := EncodeAs(b, enc)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(p)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if diff := cmp.Diff(b, d.Batch); diff != "" {
			t.Errorf("%s round trip (-want +got):\n%s", enc, diff)
		}
	}
}

// TestWireLayoutMap checks the named-field layout: each event a map with
// the class name under "type" and vLLM's field names.
func TestWireLayoutMap(t *testing.T) {
	p, err := EncodeAs(Batch{TS: 1.5, Events: []Event{
		{Kind: Stored, Hashes: []uint64{10, 11}, Tokens: []int{1, 2, 3, 4}, BlockSize: 2, Medium: MediumGPU},
		{Kind: Removed, Hashes: []uint64{10}, Medium: MediumGPU, GroupIdx: 2},
		{Kind: Cleared},
	}}, EncodingMap)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := msgpack.Unmarshal(p, &got); err != nil {
		t.Fatal(err)
	}
	want := []any{1.5, []any{
		map[string]any{"type": "BlockStored", "block_hashes": []any{int8(10), int8(11)}, "parent_block_hash": nil,
			"token_ids": []any{int8(1), int8(2), int8(3), int8(4)}, "block_size": int8(2), "lora_id": nil,
			"medium": "GPU", "lora_name": nil},
		map[string]any{"type": "BlockRemoved", "block_hashes": []any{int8(10)}, "medium": "GPU", "group_idx": int8(2)},
		map[string]any{"type": "AllBlocksCleared"},
	}, int8(0)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("map payload (-want +got):\n%s", diff)
	}
}

// TestWireLayout checks the array-like tagged layout against a payload
// built field by field as msgspec writes vLLM's KVEventBatch (integers
// in their shortest form, as msgspec writes them).
func TestWireLayout(t *testing.T) {
	want, err := msgpack.Marshal([]any{1.5, []any{
		[]any{"BlockStored", []int{10, 11}, nil, []int{1, 2, 3, 4}, 2, nil, "GPU", nil},
		[]any{"BlockRemoved", []int{10}, "GPU"},
		[]any{"AllBlocksCleared"},
	}, 0})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Encode(Batch{TS: 1.5, Events: []Event{
		{Kind: Stored, Hashes: []uint64{10, 11}, Tokens: []int{1, 2, 3, 4}, BlockSize: 2, Medium: MediumGPU},
		{Kind: Removed, Hashes: []uint64{10}, Medium: MediumGPU},
		{Kind: Cleared},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("payload\n got %x\nwant %x", got, want)
	}
}

func TestDecodeVariants(t *testing.T) {
	mk := func(v any) []byte {
		p, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		payload []byte
		events  int
		unknown int
		err     string
	}{
		{"two-field batch", mk([]any{1.0, []any{[]any{"AllBlocksCleared"}}}), 1, 0, ""},
		{"nil dp rank", mk([]any{1.0, []any{}, nil}), 0, 0, ""},
		{"later fields", mk([]any{1.0, []any{[]any{"BlockStored", []uint64{1}, nil, []int{1}, 1, nil, "GPU", "lora", nil}}, 0}), 1, 0, ""},
		{"bytes hash", mk([]any{1.0, []any{[]any{"BlockRemoved", []any{[]byte("abc")}, nil}}, 0}), 1, 0, ""},
		{"negative int hash", mk([]any{1.0, []any{[]any{"BlockRemoved", []any{-5}, nil}}, 0}), 1, 0, ""},
		{"unknown tag", mk([]any{1.0, []any{[]any{"BlockMoved", 1, 2}, []any{"AllBlocksCleared"}}, 0}), 1, 1, ""},
		{"map batch without events", mk(map[string]any{"ts": 1}), 0, 0, "map without events"},
		{"map batch", mk(map[string]any{"ts": 1.0, "events": []any{[]any{"AllBlocksCleared"}}, "data_parallel_rank": nil}), 1, 0, ""},
		// llm-d-inference-sim's positional arrays: parent 0 for a chain's
		// first block, lora_name and extra_keys nil.
		{"llm-d-sim array", mk([]any{1.0, []any{[]any{"BlockStored", []uint64{1, 2}, 0, make([]int, 32), 16, nil, "GPU", nil, nil}}, 0}), 1, 0, ""},
		// its named-field maps: no lora_id nor lora_name.
		{"llm-d-sim map", mk([]any{1.0, []any{map[string]any{"type": "BlockStored", "block_hashes": []uint64{1, 2},
			"parent_block_hash": nil, "token_ids": make([]int, 32), "block_size": 16, "medium": "GPU"}}, 0}), 1, 0, ""},
		{"vLLM map, every field", mk([]any{1.0, []any{map[string]any{"type": "BlockStored", "block_hashes": []uint64{1},
			"parent_block_hash": 9, "token_ids": make([]int, 16), "block_size": 16, "lora_id": 2, "medium": "GPU",
			"lora_name": "sql", "extra_keys": []any{[]any{"sql", "salt"}}, "group_idx": 1, "kv_cache_spec_kind": "full",
			"kv_cache_spec_sliding_window": nil}}, 0}), 1, 0, ""},
		{"vLLM array, every field", mk([]any{1.0, []any{[]any{"BlockStored", []uint64{1}, 9, make([]int, 16), 16, 2, "GPU",
			"sql", []any{[]any{"sql"}}, 1, "sliding_window", 128}, []any{"BlockRemoved", []uint64{1}, "GPU", 1}}, 0}), 2, 0, ""},
		{"map unknown tag", mk([]any{1.0, []any{map[string]any{"type": "BlockMoved", "x": 1}}, 0}), 0, 1, ""},
		{"map without type", mk([]any{1.0, []any{map[string]any{"block_hashes": []uint64{1}}}, 0}), 0, 0, "without \"type\""},
		{"map without hashes", mk([]any{1.0, []any{map[string]any{"type": "BlockRemoved", "medium": "GPU"}}, 0}), 0, 0, "no field block_hashes"},
		{"map bad field", mk([]any{1.0, []any{map[string]any{"type": "BlockStored", "block_size": "x"}}, 0}), 0, 0, "block_size"},
		{"nil hash", mk([]any{1.0, []any{[]any{"BlockRemoved", []any{nil}, nil}}, 0}), 0, 0, "hash 0"},
		{"truncated", mk([]any{1.0, []any{[]any{"AllBlocksCleared"}}, 0})[:4], 0, 0, "event"},
		{"empty", nil, 0, 0, "want an array"},
		{"short stored", mk([]any{1.0, []any{[]any{"BlockStored", []uint64{1}, nil, []int{1}}}, 0}), 0, 0, "want at least 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Decode(tt.payload)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Events) != tt.events || d.UnknownTags != tt.unknown {
				t.Errorf("events %d unknown %d, want %d %d", len(d.Events), d.UnknownTags, tt.events, tt.unknown)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	p, _ := Encode(sampleBatch())
	f.Add(p)
	f.Fuzz(func(t *testing.T, p []byte) { checkReencode(t, p, EncodingArray) })
}

// FuzzDecodeMap fuzzes the named-field decoder (seeds in
// testdata/fuzz/FuzzDecodeMap: vLLM's and llm-d-inference-sim's maps).
func FuzzDecodeMap(f *testing.F) {
	p, _ := EncodeAs(sampleBatch(), EncodingMap)
	f.Add(p)
	f.Fuzz(func(t *testing.T, p []byte) { checkReencode(t, p, EncodingMap) })
}

// checkReencode decodes p and, when it decodes, checks that the batch
// encodes in enc and decodes again to the same batch.
func checkReencode(t *testing.T, p []byte, enc Encoding) {
	d, err := Decode(p)
	if err != nil {
		return
	}
	q, err := EncodeAs(d.Batch, enc)
	if err != nil {
		t.Fatalf("decoded batch does not encode: %v", err)
	}
	d2, err := Decode(q)
	if err != nil {
		t.Fatalf("re-encoded batch does not decode: %v", err)
	}
	if diff := cmp.Diff(d.Batch, d2.Batch, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("re-encoded batch differs (-first +second):\n%s", diff)
	}
}
