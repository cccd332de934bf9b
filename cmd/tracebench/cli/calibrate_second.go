package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tracebench/tracebench/calibrate"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/predict"
)

// writeSecondProbe fits the second probe's files as the first was fitted
// (res; by engine replay when replayed) and prints how the two compare.
func writeSecondProbe(w io.Writer, o *calibrateOptions, start *profile.Profile, res *calibrate.Result, replayed bool) error {
	files, err := resultsFilesIn(o.second)
	if err != nil {
		return usagef("--second-probe: %v", err)
	}
	in, err := calibrate.Load(files)
	if err != nil {
		return fmt.Errorf("--second-probe: %w", err)
	}
	opt := o.fitOptions(start)
	if opt.SaveLogs, err = readSaveLogs("--second-server-log", o.secondLogs); err != nil {
		return err
	}
	res2, err := calibrate.Fit(in, opt)
	if err != nil {
		return fmt.Errorf("--second-probe: %w", err)
	}
	if replayed {
		if err := calibrate.Refit(res2, in, predict.RunPrompts); err != nil {
			return fmt.Errorf("--second-probe: %w", err)
		}
	}
	cmp, err := calibrate.CompareProbes(res, res2, o.files, files)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nthe second probe (%d successful requests from %d file(s)), fitted alike:\n", in.Requests, len(files))
	return calibrate.WriteProbes(w, cmp)
}

// resultsFilesIn expands each path: a directory to its *.jsonl files
// (sorted), a file to itself.
func resultsFilesIn(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no *.jsonl results files in the directory", p)
		}
		out = append(out, m...)
	}
	return out, nil
}
