package kvevents

import "fmt"

// Kind is an event's type, tagged on the wire with vLLM's class name.
type Kind uint8

// Event kinds and their wire tags.
const (
	// Stored is vLLM's BlockStored: full blocks entered the prefix cache.
	Stored Kind = iota + 1
	// Removed is vLLM's BlockRemoved: blocks left the prefix cache.
	Removed
	// Cleared is vLLM's AllBlocksCleared: the whole prefix cache was reset.
	Cleared
)

// Wire tags, as msgspec writes a tagged struct's class name.
const (
	TagStored  = "BlockStored"
	TagRemoved = "BlockRemoved"
	TagCleared = "AllBlocksCleared"
)

// MediumGPU is the medium vLLM names for blocks in accelerator memory.
const MediumGPU = "GPU"

// Event is one KV cache event. Fields not used by a Kind are zero.
type Event struct {
	// Kind is the event type.
	Kind Kind
	// Hashes are the block hashes stored or removed, in chain order for
	// Stored.
	Hashes []uint64
	// Parent is the hash of the block before Hashes[0] when HasParent
	// (Stored; nil on the wire for a chain's first block).
	Parent    uint64
	HasParent bool
	// Tokens are the token ids of the stored blocks, BlockSize per block
	// (Stored).
	Tokens []int
	// BlockSize is tokens per block (Stored).
	BlockSize int
	// LoRAID is the adapter id when HasLoRA (Stored; nil on the wire for
	// the base model).
	LoRAID  int64
	HasLoRA bool
	// Medium is where the blocks live ("GPU"; empty for nil).
	Medium string
	// LoRAName is the adapter's name (Stored; vLLM's lora_name, which
	// replaced lora_id in the block hash; empty for nil).
	LoRAName string
	// GroupIdx is the KV cache group of the blocks (vLLM's group_idx,
	// for models with several attention kinds; 0 when absent).
	GroupIdx int
}

// Encoding is how a payload writes its events (see Encode).
type Encoding uint8

// The two encodings vLLM's publishers use.
const (
	// EncodingArray is msgspec's array_like tagged structs: each event an
	// array led by its class name, fields in declaration order (vLLM's
	// default).
	EncodingArray Encoding = iota
	// EncodingMap is msgspec's default struct encoding: each event a map
	// of field name to value with the class name under "type" (vLLM
	// publishers built without array_like; llm-d-inference-sim's
	// --use-vllm-map-event-format).
	EncodingMap
)

// String returns "array" or "map".
func (e Encoding) String() string {
	if e == EncodingMap {
		return "map"
	}
	return "array"
}

// ParseEncoding reads "array" or "map".
func ParseEncoding(s string) (Encoding, error) {
	switch s {
	case "array", "":
		return EncodingArray, nil
	case "map":
		return EncodingMap, nil
	}
	return 0, fmt.Errorf("kv event encoding %q: want array or map", s)
}

// Batch is one published message: the events of one engine step.
type Batch struct {
	// TS is the publish time in seconds since the Unix epoch.
	TS float64
	// Events are the batch's events in order.
	Events []Event
	// DPRank is the data-parallel rank of the publishing engine.
	DPRank int
}
