package calibrate

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// phaseTerms names, for each probe phase (its results file
// probe-NAME.jsonl), the engine term its requests identify: the term a
// phase whose requests the replay misses most points at.
var phaseTerms = []struct{ prefix, term string }{
	{"ladder", "the slot-switch save (save_fixed, save_per_token; --cache-ram)"},
	{"restore", "the host-cache restore (restore_fixed, restore_per_token; --cache-ram)"},
	{"beside", "the stall prompts put on decoders (prefill in the decode step, ubatches; -ub)"},
	{"slots", "the fixed cost of a decode ubatch (beta: one per run of consecutive busy slots with the split KV cache; -kvu)"},
	{"saturated", "the wait outside the task queue (the HTTP workers, --threads-http)"},
	{"shared", "the prefix reuse and request overhead (slot similarity, host cache)"},
	{"d", "the decode batch (c_decode, ubatches of non-consecutive slots; -kvu)"},
	{"c", "the prompt cost (c_prefill) and the slot switches of unrelated prompts"},
}

// phaseTerm says which probe phase's requests the replay with f.cfg
// misses most (mean signed TTFT error over the measured) and the term
// that phase identifies.
func (f *replayFit) phaseTerm() (string, error) {
	sum, n := map[string]float64{}, map[string]int{}
	for _, set := range f.sets {
		times, err := replayOn(f.cfg, set)
		if err != nil {
			return "", err
		}
		over := f.cfg.RequestOverhead.Seconds()
		for i, q := range set.reqs {
			t := times[i]
			if !q.ok || t.first == 0 || q.ttft <= 0 || q.file >= len(set.files) {
				continue
			}
			name := phaseOf(set.files[q.file])
			sum[name] += (q.ttft - ((t.first - q.sent).Seconds() + over)) / q.ttft
			n[name]++
		}
	}
	worst, bias := "", 0.0
	for name, s := range sum {
		if m := s / float64(n[name]); math.Abs(m) > math.Abs(bias) {
			worst, bias = name, m
		}
	}
	if worst == "" {
		return "no request of the probe was replayed, so no phase can be named", nil
	}
	return fmt.Sprintf("the replay misses the %s phase's requests most (TTFT %+.0f %% against the model, over %d request(s)): "+
		"look at %s", worst, 100*bias, n[worst], termOfPhase(worst)), nil
}

// phaseOf is a probe results file's phase: probe-NAME.jsonl gives NAME,
// any other file its base name.
func phaseOf(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(strings.TrimPrefix(b, "probe-"), ".jsonl")
}

// termOfPhase is the term a phase identifies (the file's own name when
// it is no probe phase).
func termOfPhase(phase string) string {
	for _, p := range phaseTerms {
		if strings.HasPrefix(phase, p.prefix) {
			return p.term
		}
	}
	return "what the run " + phase + " did that the probe's phases do not"
}
