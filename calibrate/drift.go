package calibrate

import (
	"fmt"
	"math"

	"github.com/tracebench/tracebench/results"
)

// speedOverProbe compares the decode speed of each repeated phase among
// files (NAME-again against NAME, results.RepeatOf; the probe repeats its
// first phase last) on every server, and says how far it moved: moved is
// true past speedMoved (10 %). The note is empty when files hold no
// repeat with its original, or neither has a request to time.
func speedOverProbe(files []string) (note string, moved bool) {
	have := map[string]bool{}
	for _, f := range files {
		have[f] = true
	}
	var pairs []string
	for _, f := range files {
		if orig, ok := results.RepeatOf(f); ok && have[orig] {
			pairs = append(pairs, orig, f)
		}
	}
	if len(pairs) == 0 {
		return "", false
	}
	sp, err := phaseSpeeds(pairs)
	if err != nil {
		return "", false
	}
	worst, ok := mostMoved(pairSpeeds(sp, sp, func(k phaseKey) phaseKey {
		return phaseKey{k.phase + results.RepeatSuffix, k.backend}
	}))
	if !ok {
		return "", false
	}
	what := fmt.Sprintf("phase %s on server %d decoded at %.3g ms per token at the probe's start (%d requests) and %.3g at its end (%d, its repeat), %+.1f %%",
		worst.Phase, worst.Backend, worst.First, worst.N1, worst.Second, worst.N2, 100*worst.Change())
	if math.Abs(worst.Change()) <= speedMoved {
		return fmt.Sprintf("the servers' speed held within %.0f %% over the probe (most: %s)", 100*speedMoved, what), false
	}
	return fmt.Sprintf("the servers' speed moved over the probe (%s): the terms average over a machine whose speed moved, "+
		"and a probe at another time may differ as much; probe where nothing else runs on the servers' CPUs or GPUs", what), true
}
