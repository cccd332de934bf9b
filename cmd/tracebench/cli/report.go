package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/reports/html"
)

func init() { register(newReportCmd) }

// reportOptions are the flags of `tracebench report`.
type reportOptions struct {
	format      string
	out         string
	title       string
	png         bool
	requestsCSV string
	slo         flags.SLO
}

// newReportCmd is `tracebench report`.
func newReportCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "report RESULTS.jsonl...",
		Short: "Compare runs side by side from their results files",
		Long: `report reads one or more results files (streaming: a million-request run
reports in bounded memory) and compares the runs side by side.

--format table prints the comparison table (and, with --out DIR, also writes
report.md with plots, report.html, summary.csv and summary.json into DIR); md
writes the markdown and HTML reports into --out (default tracebench-report); csv and json write
the summary to --out DIR or to standard output. --requests-csv FILE also
writes one row per request.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("report: give at least one results file")
			}
			return nil
		},
	}, &reportOptions{})
}

// bind declares report's flags.
func (o *reportOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.format, "format", "table", "output: table, md, csv or json")
	fs.StringVar(&o.out, "out", "", "directory for report files (md default: tracebench-report)")
	fs.StringVar(&o.title, "title", "", "title of the markdown report")
	fs.BoolVar(&o.png, "png", false, "also render plots as PNG and embed those instead of the SVGs")
	fs.StringVar(&o.requestsCSV, "requests-csv", "", "also write a per-request CSV to this file")
	fs.DurationVar(&o.slo.TTFT, "slo-ttft", 2*time.Second, "SLA bound on TTFT from intended arrival (0 = none)")
	fs.DurationVar(&o.slo.TTFOT, "slo-ttfot", 0, "SLA bound on the time to first output token, after a reasoning model's reasoning (0 = none)")
	fs.DurationVar(&o.slo.TPOT, "slo-tpot", 100*time.Millisecond, "SLA bound on TPOT (0 = none)")
	fs.DurationVar(&o.slo.E2E, "slo-e2e", 0, "SLA bound on end-to-end latency (0 = none)")
	fs.StringVar(&o.slo.File, "slo-file", "", "YAML file of per-user SLO bounds (users: {name: {ttft: 1s}})")
	fs.DurationVar(&o.slo.Warmup, "warmup", 0, "leave out requests that arrive in the first D of each run")
	fs.StringVar(&o.slo.Cost, "cost-per-hour", "", "price of each backend in $/hour, for cost per token (default: none)")
}

// run compares the runs of the results files args.
func (o *reportOptions) run(cmd *cobra.Command, args []string) error {
	return runReport(cmd.OutOrStdout(), o, args)
}

func runReport(out io.Writer, o *reportOptions, paths []string) error {
	switch o.format {
	case "table", "md", "csv", "json":
	default:
		return usagef("--format: %q is not one of table, md, csv, json", o.format)
	}
	ro, err := o.slo.Options()
	if err != nil {
		return err
	}
	runs := make([]*metrics.Summary, 0, len(paths))
	for _, p := range paths {
		s, err := metrics.Summarize(p, ro)
		if err != nil {
			return err
		}
		runs = append(runs, s)
	}
	if o.requestsCSV != "" {
		if err := writeRequestsCSV(o.requestsCSV, ro, paths); err != nil {
			return err
		}
	}
	return writeReportFormat(out, o, runs)
}

func writeReportFormat(out io.Writer, o *reportOptions, runs []*metrics.Summary) error {
	ropt := reports.RenderOptions{Title: o.title, PNG: o.png}
	switch o.format {
	case "md":
		dir := o.out
		if dir == "" {
			dir = "tracebench-report"
		}
		if err := reports.WriteDir(dir, runs, ropt); err != nil {
			return err
		}
		fmt.Fprint(out, reportPaths(filepath.Join(dir, "report.md")))
	case "csv", "json":
		write := reports.WriteCSV
		if o.format == "json" {
			write = reports.WriteJSON
		}
		if o.out == "" {
			return write(out, runs)
		}
		return reports.WriteFile(filepath.Join(o.out, "summary."+o.format), func(w io.Writer) error { return write(w, runs) })
	default:
		if err := reports.WriteTable(out, runs); err != nil {
			return err
		}
		if o.out != "" {
			if err := reports.WriteDir(o.out, runs, ropt); err != nil {
				return err
			}
			fmt.Fprint(out, "\n"+reportPaths(filepath.Join(o.out, "report.md")))
		}
	}
	return nil
}

// reportPaths says where the markdown report md and the HTML report
// beside it are, a line each.
func reportPaths(md string) string {
	return fmt.Sprintf("report: %s\nhtml: %s\n", md, html.Beside(md))
}

func writeRequestsCSV(path string, ro metrics.Options, paths []string) error {
	return reports.WriteFile(path, func(w io.Writer) error { return reports.WriteRequestsCSV(w, ro, paths...) })
}
