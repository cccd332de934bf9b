package probe

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Slot-switch ladder constants: ladderRungs evicted lengths, ladderBlock
// tokens per hash id of its trace, ladderOutput output tokens per request.
const (
	ladderName   = "ladder"
	ladderRungs  = 6
	ladderBlock  = 16
	ladderOutput = 8
)

// ladderRecord is one line of the ladder's trace, in the Mooncake format.
type ladderRecord struct {
	Timestamp    float64  `json:"timestamp"`
	InputLength  int      `json:"input_length"`
	OutputLength int      `json:"output_length"`
	HashIDs      []uint64 `json:"hash_ids"`
}

// LadderPhase is the slot-switch ladder of a llama.cpp server with slots
// slots: at concurrency 1 on the first target, unrelated prompts (no
// shared prefix, so the server takes its least recently used slot), so
// request k evicts what request k−slots left in its slot. Blocks of
// slots long prompts, climbing ladderRungs rungs from maxPrompt/rungs to
// maxPrompt tokens, alternate with blocks of slots short ones
// (maxPrompt/48 tokens): a short request's TTFT is a small prefill plus
// the save of a long prompt, so the save's cost is read against the
// evicted length at a fixed prompt length, and a long request's is its
// prefill plus the save of a short one. Its trace (n requests) is
// written to dir/workloads/ladder.jsonl.
func LadderPhase(dir string, slots, maxPrompt, n int, seed uint64) (Phase, error) {
	return designedPhase(dir, ladderName, "slot-switch ladder", 1, ladderRecords(ladderLengths(slots, maxPrompt, n), seed))
}

// ladderLengths is the ladder's prompt lengths, n of them.
func ladderLengths(slots, maxPrompt, n int) []int {
	short := max(ladderBlock, maxPrompt/48)
	out := make([]int, 0, n)
	for rung := 0; len(out) < n; rung++ {
		for i := 0; i < slots && len(out) < n; i++ {
			out = append(out, max(short+ladderBlock, maxPrompt*(1+(rung*slots+i)%ladderRungs)/ladderRungs))
		}
		for i := 0; i < slots && len(out) < n; i++ {
			out = append(out, short)
		}
	}
	return out
}

// traceFile is where a phase's trace is written: dir/workloads/NAME.jsonl,
// apart from the phases' results files so that a glob of dir/*.jsonl
// finds results only, and beside them so that a moved probe keeps them.
func traceFile(dir, name string) string {
	return filepath.Join(dir, "workloads", name+".jsonl")
}

// designedPhase writes recs as the trace of the phase name in dir
// (traceFile) and returns the phase that sends it in order on the first
// target at concurrency; what names the phase in an error.
func designedPhase[R any](dir, name, what string, concurrency int, recs []R) (Phase, error) {
	path := traceFile(dir, name)
	if err := writeTrace(path, recs); err != nil {
		return Phase{}, fmt.Errorf("calibrate probe: %s: %w", what, err)
	}
	return Phase{Name: name, Concurrency: concurrency, Trace: path, BlockSize: ladderBlock, FirstTarget: true}, nil
}

// ladderRecords is one Mooncake record per length, each with hash ids of
// its own so that no two prompts share a prefix.
func ladderRecords(lengths []int, seed uint64) []ladderRecord {
	next := seed << 20
	recs := make([]ladderRecord, len(lengths))
	for i, n := range lengths {
		recs[i] = unrelated(&next, n, ladderOutput)
	}
	return recs
}

// unrelated is a record of in prompt tokens and out output tokens whose
// hash ids, taken from *next on, no other record shares.
func unrelated(next *uint64, in, out int) ladderRecord {
	r := ladderRecord{InputLength: in, OutputLength: out}
	for b := 0; b*ladderBlock < in; b++ {
		r.HashIDs = append(r.HashIDs, *next)
		*next++
	}
	return r
}

// writeTrace writes recs as JSON lines (Mooncake or native records), all
// at time 0: the phase's closed loop sends them in order.
func writeTrace[R any](path string, recs []R) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
