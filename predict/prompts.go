package predict

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/calibrate"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// RunPrompts rebuilds the requests of the run whose results file is path
// (from its header, as predict does) and returns each request's prompt as
// the simulated engines see it, by request id: its token ids, else its
// rendered block ids, else its text split as the mock's default
// tokenizer splits it; with the slot it named, if any.
func RunPrompts(path string) (map[string]calibrate.Prompt, error) {
	rs, _, err := SpecFromResults(path)
	if err != nil {
		return nil, err
	}
	src, err := bench.OpenSource(rs.Workload)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	out := map[string]calibrate.Prompt{}
	tok := tokenizer.Whitespace{}
	for {
		r, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		ids := r.TokenIDs
		if len(ids) == 0 {
			ids = traces.AppendPromptTokens(nil, &r)
		}
		if len(ids) == 0 {
			ids = tok.Encode(traces.PromptText(&r))
		}
		out[r.ID] = calibrate.Prompt{Tokens: ids, Slot: r.Slot}
	}
}

// besideResults resolves a trace path a results header names: as it is
// when it exists from the working directory, else relative to the results
// file's directory (where a recorded run and its workload are kept
// together), else its base name in that directory or in a folder of its
// own folder's name there (a recorded probe moved with the traces it
// wrote beside its results, in workloads/), else as it is.
func besideResults(trace, results string) string {
	if trace == "" {
		return trace
	}
	if _, err := os.Stat(trace); err == nil {
		return trace
	}
	dir := filepath.Dir(results)
	for _, alt := range []string{filepath.Join(dir, trace), filepath.Join(dir, filepath.Base(trace)),
		filepath.Join(dir, filepath.Base(filepath.Dir(trace)), filepath.Base(trace))} {
		if _, err := os.Stat(alt); err == nil {
			return alt
		}
	}
	return trace
}
