package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
)

// WriteDir writes the full report into dir (created if needed):
// report.md with its plots under plots/, report.html (self-contained),
// summary.csv, summary.json and, when a run had sessions, sessions.csv.
func WriteDir(dir string, runs []*metrics.Summary, o RenderOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	if err := WriteMarkdown(dir, runs, o); err != nil {
		return err
	}
	h := HTMLFromRuns(runs, o)
	if o.NoPlots {
		h.Runs = nil
	}
	if err := html.WriteFile(dir, h); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "summary.csv"), func(w io.Writer) error { return WriteCSV(w, runs) }); err != nil {
		return err
	}
	if anySessions(runs) {
		if err := writeFile(filepath.Join(dir, "sessions.csv"), func(w io.Writer) error { return WriteSessionsCSV(w, runs) }); err != nil {
			return err
		}
	}
	return writeFile(filepath.Join(dir, "summary.json"), func(w io.Writer) error { return WriteJSON(w, runs) })
}

// WriteFile creates path, and its directory when missing, and writes it
// with fn; an error names the path.
func WriteFile(path string, fn func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	return writeFile(path, fn)
}

// writeFile creates path and writes it with fn.
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
