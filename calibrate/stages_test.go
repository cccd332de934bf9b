package calibrate

import (
	"slices"
	"testing"
)

// TestStagesFor: the pinned-slot phase moves β into the decode stage over
// every file, and a restore phase that restored confines the restore
// stage to itself; one that restored nothing leaves the stage over every
// cached file.
func TestStagesFor(t *testing.T) {
	tests := []struct {
		name         string
		files        []string
		kinds        map[int]fileKind
		decodeBeta   bool
		restorePhase string
	}{
		{"plain probe", []string{"p/probe-c1.jsonl", "p/probe-shared-c4.jsonl"},
			map[int]fileKind{0: kindPrompt, 1: kindCached}, false, ""},
		{"slots and a restore phase that restored", []string{"p/probe-slots.jsonl", "p/probe-restore.jsonl"},
			map[int]fileKind{0: kindDecode, 1: kindCached}, true, restorePhase},
		{"a restore phase that restored nothing", []string{"p/probe-shared-c4.jsonl", "p/probe-restore.jsonl"},
			map[int]fileKind{0: kindCached, 1: kindPrompt}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := stagesFor([]*replaySet{{files: tc.files, kinds: tc.kinds}})
			if beta := slices.Contains(got[1].terms, termBeta); beta != tc.decodeBeta || got[1].everyFile != tc.decodeBeta {
				t.Errorf("decode stage terms %v every file %v; want β moved %v", got[1].terms, got[1].everyFile, tc.decodeBeta)
			}
			if got[2].phase != tc.restorePhase {
				t.Errorf("restore stage phase %q, want %q", got[2].phase, tc.restorePhase)
			}
			if stages[2].phase != "" || len(stages[1].terms) != 1 {
				t.Fatal("stagesFor changed the package's stages")
			}
		})
	}
}
