package results

import (
	"path/filepath"
	"strings"
)

// RepeatSuffix ends the name of a results file that repeats the run of
// the same name without it, later (probe-c1-again.jsonl repeats
// probe-c1.jsonl): the calibration probe ends with such a repeat of its
// first phase, so calibrate can tell how far the servers' speed moved
// over the probe.
const RepeatSuffix = "-again"

// RepeatOf returns the path of the run that path repeats, and whether
// path names a repeat at all.
func RepeatOf(path string) (string, bool) {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if !strings.HasSuffix(stem, RepeatSuffix) || stem == RepeatSuffix {
		return "", false
	}
	return filepath.Join(dir, strings.TrimSuffix(stem, RepeatSuffix)+ext), true
}
