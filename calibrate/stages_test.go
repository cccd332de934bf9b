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

// TestStageWithoutLoggedSave: with the saves priced from the servers'
// logs the prompt stage searches the other terms only, and the shared
// stage table is left as it was.
func TestStageWithoutLoggedSave(t *testing.T) {
	res := &Result{logged: &SaveCost{Fixed: 1e-3}}
	got := stages[0].without(res.loggedTerms())
	if want := []int{termPrefill, termBeta, termOverhead}; !slices.Equal(got.terms, want) {
		t.Errorf("prompt stage terms %v, want %v", got.terms, want)
	}
	if !slices.Contains(stages[0].terms, termSaveFixed) {
		t.Errorf("the stage table lost its save term: %v", stages[0].terms)
	}
	if (&Result{}).loggedTerms() != nil {
		t.Error("without logs every term is searched")
	}
}
