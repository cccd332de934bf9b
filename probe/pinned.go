package probe

import (
	"strconv"

	"github.com/tracebench/tracebench/traces"
)

// slotsName is the pinned-slot phase's name (probe-slots.jsonl); its
// decoders generate slotsOutput tokens each.
const (
	slotsName   = "slots"
	slotsOutput = 128
)

// pinnedRecord is one line of the pinned-slot phase's trace, in the
// native format (traces.FormatNative): the only format that names a slot.
type pinnedRecord struct {
	ID           string   `json:"id"`
	Arrival      int64    `json:"arrival_ns"`
	BlockIDs     []uint64 `json:"block_ids"`
	BlockSize    int      `json:"block_size"`
	InputTokens  int      `json:"input_tokens"`
	OutputTokens int      `json:"output_tokens"`
	Slot         int      `json:"slot"`
}

// SlotsPhase is the pinned-slot phase of a llama.cpp server with slots
// slots (at least 3): at concurrency k = (slots+1)/2 on the first target,
// blocks of k decoders (short unrelated prompts, slotsOutput tokens each)
// pinned by id_slot alternately to the first k slots (one run of
// consecutive slots) and to every other slot, 0, 2, … 2k−2 (k runs).
// With the KV cache split per slot (the default) each run decodes as a
// ubatch of its own, so the two patterns differ by k−1 ubatches' fixed
// cost at one batch size: β is read apart from the per-sequence c_decode;
// with -kvu (one ubatch) they cost the same. Its trace (n requests) is
// written to dir/workloads/slots.jsonl. ok is false for fewer than 3 slots.
func SlotsPhase(dir string, slots, maxPrompt, n int, seed uint64) (ph Phase, ok bool, err error) {
	k := (slots + 1) / 2
	if k < 2 {
		return Phase{}, false, nil
	}
	ph, err = designedPhase(dir, slotsName, "pinned-slot phase", k, pinnedRecords(slots, maxPrompt, n, seed))
	if err != nil {
		return Phase{}, false, err
	}
	ph.Format = traces.FormatNative
	return ph, true, nil
}

// pinnedRecords is the pinned-slot phase's trace: blocks of (slots+1)/2
// decoders, on consecutive then on alternate slots.
func pinnedRecords(slots, maxPrompt, n int, seed uint64) []pinnedRecord {
	k := (slots + 1) / 2
	next := seed<<20 | 5<<16 // apart from the other phases' hash ids
	out := make([]pinnedRecord, 0, n)
	for block := 0; len(out) < n; block++ {
		step := 1 + block%2 // consecutive, then every other slot
		for i := 0; i < k && len(out) < n; i++ {
			u := unrelated(&next, max(ladderBlock, maxPrompt/48), slotsOutput)
			out = append(out, pinnedRecord{ID: "slots-" + strconv.Itoa(len(out)), BlockIDs: u.HashIDs, BlockSize: ladderBlock,
				InputTokens: u.InputLength, OutputTokens: u.OutputLength, Slot: i * step})
		}
	}
	return out
}
