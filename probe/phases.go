package probe

import (
	"fmt"
	"strconv"

	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Phase is one step of the calibration probe: a generated workload
// sent at a fixed concurrency.
type Phase struct {
	// Name names the phase and its results file (probe-NAME.jsonl).
	Name string
	// Concurrency is the requests in flight per backend.
	Concurrency int
	// Workload is the generator and WorkloadArgs its parameters.
	Workload     string
	WorkloadArgs traces.Params
	// Trace, when set, is a trace the phase sends in order instead of a
	// generated workload, in Format (default traces.FormatMooncake), with
	// BlockSize tokens per hash id (the slot-switch ladder, LadderPhase).
	Trace     string
	Format    string
	BlockSize int
	// FirstTarget runs the phase on the first target only (a pattern of
	// slot switches that a router splitting it over servers would break).
	FirstTarget bool
}

// probeDecodeFrom is the concurrency from which the probe's
// unrelated-prompt phases decode long outputs after short prompts; a
// probe whose top concurrency is below it is a small server's.
const probeDecodeFrom = 8

// Phases is the designed probe up to maxConc requests in flight per
// backend with prompts up to maxPrompt words: unrelated prompts of
// maxPrompt/48 to maxPrompt words with 16 to 64 output tokens at
// concurrency 1, 2 and 4 (the prompt cost, and decode at small batches),
// short prompts (maxPrompt/48 to maxPrompt/8 words) with long outputs
// (128 to 256 tokens) at concurrency 8, 16 and 32 (the batch terms: with
// long prompts the other requests' prefills fill the decode windows and
// hide how the step time grows with the batch), then prompts sharing long
// system prompts (so the cached share varies) at concurrency 4.
//
// A small server (maxConc under 8, as llama.cpp with 4 slots) gets the
// decode-heavy phases at its own levels (d2, d4), and the shared prompts
// first one at a time (shared-c1): its shared phase at 4 fills every
// slot, so each request there waits on others' prompts, and requests
// that reuse a slot's prompt alone at batch 1 are what separates the
// request overhead from llama.cpp's slot saves (which the unrelated
// prompts pay almost every time).
func Phases(maxConc, maxPrompt int) []Phase {
	small := maxConc < probeDecodeFrom
	var ps []Phase
	add := func(name string, c, inMax, outMin, outMax int) {
		ps = append(ps, Phase{Name: name + strconv.Itoa(c), Concurrency: c, Workload: "uniform-lengths",
			WorkloadArgs: traces.Params{{Name: "input_min", Value: traces.ParamInt(max(1, maxPrompt/48))}, {Name: "input_max", Value: traces.ParamInt(inMax)},
				{Name: "output_min", Value: traces.ParamInt(outMin)}, {Name: "output_max", Value: traces.ParamInt(outMax)}}})
	}
	for c := 1; c <= maxConc; c *= 2 {
		switch {
		case c >= probeDecodeFrom:
			add("c", c, max(1, maxPrompt/8), 128, 256)
		case c >= 2 && small:
			add("c", c, maxPrompt, 16, 64)
			add("d", c, max(1, maxPrompt/8), 128, 256)
		default:
			add("c", c, maxPrompt, 16, 64)
		}
	}
	shared := func(c int) Phase {
		return Phase{Name: "shared-c" + strconv.Itoa(c), Concurrency: c, Workload: "shared-prefix",
			WorkloadArgs: traces.Params{{Name: "groups", Value: traces.ParamInt(3)}, {Name: "system_len", Value: traces.ParamInt(max(1, 2*maxPrompt/3))},
				{Name: "question_len", Value: traces.ParamInt(max(1, maxPrompt/4))}, {Name: "output_len", Value: traces.ParamInt(32)}}}
	}
	if small {
		ps = append(ps, shared(1))
	}
	return append(ps, shared(min(4, maxConc)))
}

// Concurrency caps the probe's top concurrency at the fewest slots
// of the llama.cpp targets (slots, 0 for other servers; at least 2):
// requests beyond a server's slots only queue there, and the
// decode-heavy phases of a small server then run at its own levels. The
// second result says why it capped ("" when it did not).
func Concurrency(maxConc int, slots []int) (int, string) {
	fewest := 0
	for _, s := range slots {
		if s > 0 && (fewest == 0 || s < fewest) {
			fewest = s
		}
	}
	if fewest == 0 || fewest >= maxConc {
		return maxConc, ""
	}
	c := max(2, fewest)
	return c, fmt.Sprintf("llama.cpp serves %d slots per server: concurrency up to %d", fewest, c)
}

// RepeatPhase is ph again, named NAME-again (results.RepeatSuffix), with
// prompts of its own: the probe runs a repeat of its first phase last, so
// calibrate can tell how far the servers' speed moved over the probe.
func RepeatPhase(ph Phase) Phase {
	ph.Name += results.RepeatSuffix
	return ph
}
