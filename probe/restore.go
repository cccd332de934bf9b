package probe

// restoreName is the restore phase's name (probe-restore.jsonl).
const restoreName = "restore"

// RestorePhase is the host-cache restore phase of a llama.cpp server with
// slots slots: at concurrency 1 on the first target, slots+1 unrelated
// prompts of climbing lengths (maxPrompt/(slots+1) up to maxPrompt
// tokens) sent in turn, over and over. Each unrelated prompt takes the
// least recently used slot, so by the time a prompt comes back the other
// slots+1−1 have taken every slot and its own was saved to the host
// prompt cache: the server restores it from host memory, a restore of a
// known length with almost nothing to compute. Its trace (n requests) is
// written to dir/workloads/restore.jsonl.
func RestorePhase(dir string, slots, maxPrompt, n int, seed uint64) (Phase, error) {
	return designedPhase(dir, restoreName, "restore phase", 1, restoreRecords(slots, maxPrompt, n, seed))
}

// restoreRecords is the restore phase's trace: slots+1 prompts in turn.
func restoreRecords(slots, maxPrompt, n int, seed uint64) []ladderRecord {
	k := slots + 1
	next := seed<<20 | 1<<19 // apart from the ladder's hash ids
	prompts := make([]ladderRecord, k)
	for i := range prompts {
		l := max(2*ladderBlock, maxPrompt*(i+1)/k)
		prompts[i] = unrelated(&next, l, ladderOutput)
	}
	out := make([]ladderRecord, n)
	for i := range out {
		out[i] = prompts[i%k]
	}
	return out
}
