package probe

import (
	"github.com/tracebench/tracebench/traces"
)

// Names and shapes of the phases that load a llama.cpp server beyond one
// request at a time: besideName's decoders run besideDecode output
// tokens while injections of the longest prompt take the last slot;
// saturatedName runs saturatedFactor times the slots in flight.
const (
	besideName      = "beside"
	besideDecode    = 128
	besideInjects   = 4
	saturatedName   = "saturated"
	saturatedFactor = 3
)

// BesidePhase is the prompts-beside-decoders phase of a llama.cpp server
// with slots slots: at concurrency slots on the first target, blocks of
// slots−1 decoders (short prompts, besideDecode output tokens) followed
// by besideInjects injections (the longest prompt, ladderOutput tokens),
// so long prompts are computed while steady decoders wait on the engine
// loop: how much an admission stalls the decoding requests. Its trace (n
// requests) is written to dir/workloads/beside.jsonl.
func BesidePhase(dir string, slots, maxPrompt, n int, seed uint64) (Phase, error) {
	return designedPhase(dir, besideName, "prompts-beside-decoders phase", slots, besideRecords(slots, maxPrompt, n, seed))
}

// besideRecords is the beside phase's trace: unrelated prompts, decoders
// and injections in blocks.
func besideRecords(slots, maxPrompt, n int, seed uint64) []ladderRecord {
	next := seed<<20 | 1<<18 // apart from the ladder's and the restore phase's hash ids
	rec := func(in, out int) ladderRecord { return unrelated(&next, in, out) }
	out := make([]ladderRecord, 0, n)
	for len(out) < n {
		for i := 0; i < max(1, slots-1) && len(out) < n; i++ {
			out = append(out, rec(max(ladderBlock, maxPrompt/48), besideDecode))
		}
		for i := 0; i < besideInjects && len(out) < n; i++ {
			out = append(out, rec(maxPrompt, ladderOutput))
		}
	}
	return out
}

// SaturatedPhase runs saturatedFactor × slots requests in flight per
// llama.cpp server, beyond its slots and its HTTP workers (-np + 2 by
// default): requests past the workers wait outside the server's task
// queue, a wait the server does not report, and the fit needs it seen.
func SaturatedPhase(slots, maxPrompt int) Phase {
	return Phase{Name: saturatedName, Concurrency: saturatedFactor * slots, Workload: "uniform-lengths",
		WorkloadArgs: traces.Params{{Name: "input_min", Value: traces.ParamInt(max(1, maxPrompt/48))},
			{Name: "input_max", Value: traces.ParamInt(max(1, maxPrompt/4))},
			{Name: "output_min", Value: traces.ParamInt(16)}, {Name: "output_max", Value: traces.ParamInt(64)}}}
}
