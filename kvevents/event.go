package kvevents

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
