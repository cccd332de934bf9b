package kvevents

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vmihailenco/msgpack/v5"
)

func sampleBatch() Batch {
	return Batch{TS: 1732480000.25, DPRank: 1, Events: []Event{
		{Kind: Stored, Hashes: []uint64{1, 1 << 63}, Tokens: []int{1, 2, 3, 4}, BlockSize: 2, Medium: MediumGPU},
		{Kind: Stored, Hashes: []uint64{7}, Parent: 1 << 63, HasParent: true, Tokens: []int{5, 6}, BlockSize: 2,
			LoRAID: 3, HasLoRA: true},
		{Kind: Removed, Hashes: []uint64{1}, Medium: MediumGPU},
		{Kind: Cleared},
	}}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	b := sampleBatch()
	p, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b, d.Batch); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestWireLayout checks the array-like tagged layout against a payload
// built field by field as msgspec writes vLLM's KVEventBatch (integers
// in their shortest form, as msgspec writes them).
func TestWireLayout(t *testing.T) {
	want, err := msgpack.Marshal([]any{1.5, []any{
		[]any{"BlockStored", []int{10, 11}, nil, []int{1, 2, 3, 4}, 2, nil, "GPU"},
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
		{"not an array", mk(map[string]any{"ts": 1}), 0, 0, "want an array"},
		{"short stored", mk([]any{1.0, []any{[]any{"BlockStored", []uint64{1}}}, 0}), 0, 0, "BlockStored"},
		{"nil hash", mk([]any{1.0, []any{[]any{"BlockRemoved", []any{nil}, nil}}, 0}), 0, 0, "hash 0"},
		{"truncated", mk([]any{1.0, []any{[]any{"AllBlocksCleared"}}, 0})[:4], 0, 0, "event"},
		{"empty", nil, 0, 0, "want an array"},
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
	f.Fuzz(func(t *testing.T, p []byte) {
		d, err := Decode(p)
		if err != nil {
			return
		}
		q, err := Encode(d.Batch)
		if err != nil {
			t.Fatalf("decoded batch does not encode: %v", err)
		}
		if _, err := Decode(q); err != nil {
			t.Fatalf("re-encoded batch does not decode: %v", err)
		}
	})
}
