package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports"
)

// writeRunsReport writes the report of runs into dir with o and returns
// the path of its report.md.
func writeRunsReport(dir string, runs []*metrics.Summary, o reports.RenderOptions) (string, error) {
	if err := reports.WriteDir(dir, runs, o); err != nil {
		return "", fmt.Errorf("write report: %w", err)
	}
	return filepath.Join(dir, "report.md"), nil
}

// interrupted is err, or ErrInterrupted when err comes of a canceled
// context (Ctrl-C).
func interrupted(err error) error {
	if err != nil && errors.Is(err, context.Canceled) {
		return ErrInterrupted
	}
	return err
}
