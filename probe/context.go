package probe

// contextName is the context sweep's name (probe-context.jsonl); its
// requests decode contextOutput tokens over contextRungs prompt lengths.
const (
	contextName   = "context"
	contextRungs  = 4
	contextOutput = 64
)

// ContextPhase is the context sweep of a llama.cpp server with slots
// slots: at concurrency slots on the first target, blocks of slots
// unrelated prompts of one length, the length climbing contextRungs rungs
// from maxPrompt/rungs to maxPrompt, each decoding contextOutput tokens:
// full slots decoding over more and more context, so the decode step's
// growth with the keys attended (c_attend) is read apart from the batch.
// Its trace (n requests) is written to dir/workloads/context.jsonl.
func ContextPhase(dir string, slots, maxPrompt, n int, seed uint64) (Phase, error) {
	return designedPhase(dir, contextName, "context sweep", slots, contextRecords(slots, maxPrompt, n, seed))
}

// contextRecords is the context sweep's trace.
func contextRecords(slots, maxPrompt, n int, seed uint64) []ladderRecord {
	next := seed<<20 | 3<<17 // apart from the other phases' hash ids
	out := make([]ladderRecord, 0, n)
	for rung := 0; len(out) < n; rung++ {
		l := max(ladderBlock, maxPrompt*(1+rung%contextRungs)/contextRungs)
		for i := 0; i < slots && len(out) < n; i++ {
			out = append(out, unrelated(&next, l, contextOutput))
		}
	}
	return out
}
