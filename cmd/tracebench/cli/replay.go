package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports"
)

func init() { register(newReplayCmd) }

// replayOptions are the flags of `tracebench replay`.
type replayOptions struct {
	runFlags
	pd     pdFlags
	out    string
	report string
}

// newReplayCmd is `tracebench replay`.
func newReplayCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "replay",
		Short: "Replay a trace or workload against a fleet with one policy",
		Long: `replay sends a trace (--trace) or a generated workload (--workload) to
live backends (--target, repeatable) or to an in-process mock fleet (--mock N),
acting as the gateway with one policy (--policy and optional --queue). It
streams every Result to --out and prints the summary. Ctrl-C stops dispatch,
lets in-flight requests finish for --grace, writes what was measured and
exits 130.`,
		Args: cobra.NoArgs,
	}, &replayOptions{})
}

// bind declares replay's flags.
func (o *replayOptions) bind(fs *pflag.FlagSet) {
	o.bindRun(fs, true)
	o.pd.bind(fs)
	fs.StringArrayVar(&o.targets, "target", nil, "base `URL` of a backend (repeatable; default: a --mock N fleet)")
	fs.StringVar(&o.out, "out", "results.jsonl", "results file (JSONL)")
	fs.StringVar(&o.report, "report-dir", "", "also write report.md and summary.csv into this directory")
}

// run replays the workload, writes the results file and prints the
// summary.
func (o *replayOptions) run(cmd *cobra.Command, _ []string) error {
	ro, err := o.so.Options()
	if err != nil {
		return err
	}
	if err := o.pf.LoadConfig(cmd.Flags().Changed, true); err != nil {
		return err
	}
	if dir := filepath.Dir(o.out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--out %s: %w", o.out, err)
		}
	}
	rs := runSpec{Workload: o.wf, Policy: o.pf, Client: o.cf, Report: ro, Results: o.out, ErrOut: libOut(cmd.ErrOrStderr())}
	stop, err := o.pd.backends(cmd.Context(), &rs, &o.mf, o.targets)
	if err != nil {
		return err
	}
	defer stop()
	if rs.Sim > 0 {
		defer capHeap()()
	}
	sum, runErr := bench.Run(cmd.Context(), rs)
	if sum != nil {
		if err := reports.WriteTable(cmd.OutOrStdout(), []*metrics.Summary{sum}); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "results: %s\n", o.out)
		if o.report != "" {
			if err := writeReportFiles(o.report, []*metrics.Summary{sum}); err != nil {
				return err
			}
		}
	}
	return runErr
}

// writeReportFiles writes report.md (with plots), summary.csv and
// summary.json into dir.
func writeReportFiles(dir string, runs []*metrics.Summary) error {
	if err := reports.WriteDir(dir, runs, reports.RenderOptions{}); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
