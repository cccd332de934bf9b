package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/reports"
)

func init() { register(newBenchCmd) }

// benchOptions are the flags of `tracebench bench`.
type benchOptions struct {
	// live is the plan of a bench against --target servers (nil
	// otherwise): cache flushes or rotation, per run.
	live     *liveBench
	wf       workloadFlags
	pf       policyFlags
	cf       clientFlags
	so       sloFlags
	mf       fleetFlags
	quick    bool
	jobs     int
	policies string
	targets  []string
	out      string
	seeds    int
	// verdict, set once every seed ran, opens the report.
	verdict *reports.Verdict
}

func newBenchCmd() *cobra.Command {
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Compare policies on a workload: one replay per policy, one table, a report",
		Long: `bench replays one workload once per policy and prints a comparison table.
With no flags it compares every registered router: each on its own fresh
4-replica mock fleet in-process (so each starts with cold caches), all at
once, on the default mixed workload, and writes report.md, summary.csv,
plots and the results files into --out. When the machine distorted the
timings of runs side by side (client schedule lag or mock step lateness
past the report's warning thresholds), one of them is run again alone: if
that is honest, the others are run again at half the concurrency, halving
until they are honest; if not, the machine is too busy and bench says so.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBench(cmd, o) },
	}
	fs := cmd.Flags()
	bindWorkload(fs, &o.wf, "mixed")
	bindPolicy(fs, &o.pf, false)
	bindClient(fs, &o.cf)
	o.so.bind(fs)
	o.mf.bind(fs)
	fs.BoolVar(&o.quick, "quick", false, "a short run: 5 routers, 80 requests at 20 req/s each (about half a minute)")
	fs.StringVar(&o.policies, "policies", "", "comma-separated routers to compare (default: every registered router)")
	fs.IntVar(&o.jobs, "jobs", 0, "policies run at once, each on its own fleet (0 = all of them on mock fleets, "+
		"GOMAXPROCS with --sim, 1 with --target)")
	fs.StringArrayVar(&o.targets, "target", nil, "base URL of a live backend (repeatable); default: an in-process mock fleet")
	fs.StringVar(&o.out, "out", "tracebench-out", "directory for report.md, summary.csv, plots and results files")
	fs.IntVar(&o.seeds, "seeds", 1, "run every policy on N seeds of the workload and arrivals (and mock jitter) for a verdict with a confidence interval")
	return cmd
}

// benchQuickPolicies are compared by bench --quick: the three baselines
// and two prefix-aware routers.
var benchQuickPolicies = []string{"random", "round-robin", "least-request", "prefix-cache", "cache-aware"}

// benchPolicies resolves --policies, checking every name.
func benchPolicies(list string, quick bool) ([]string, error) {
	if list == "" {
		if !quick {
			return policies.Names("router"), nil
		}
		var out []string
		for _, p := range benchQuickPolicies {
			if _, err := policies.Lookup("router", p); err == nil {
				out = append(out, p)
			}
		}
		return out, nil
	}
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if _, err := policies.Lookup("router", p); err != nil {
			return nil, usagef("--policies: %v", err)
		}
		out = append(out, p)
	}
	return out, nil
}

func runBench(cmd *cobra.Command, o *benchOptions) error {
	names, err := benchPolicies(o.policies, o.quick)
	if err != nil {
		return err
	}
	if o.seeds < 1 {
		return usagef("--seeds %d: want ≥ 1", o.seeds)
	}
	if err := o.pf.LoadConfig(cmd.Flags().Changed, false); err != nil {
		return err
	}
	if err := o.pf.CheckConfigRouter(names); err != nil {
		return err
	}
	if o.quick {
		quickDefaults(cmd, o)
	}
	ro, err := o.so.options()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	live, names, err := prepareLive(cmd, o, names)
	if err != nil {
		return err
	}
	o.live = live
	if o.jobs < 0 {
		return usagef("--jobs %d: want 0 (automatic) or more", o.jobs)
	}
	runs, err := benchAll(cmd.Context(), cmd, o, ro, names)
	if err != nil && !errors.Is(err, ErrInterrupted) {
		return writeBench(cmd, o, runs, err)
	}
	if err := benchVerdict(cmd, o, ro, names, runs); err != nil {
		return writeBench(cmd, o, runs, err)
	}
	return writeBench(cmd, o, runs, cmd.Context().Err())
}

// quickDefaults shortens the run for --quick unless the flags were set:
// 80 requests at 20 req/s (Poisson), about 5 s per policy.
func quickDefaults(cmd *cobra.Command, o *benchOptions) {
	if !cmd.Flags().Changed("max-requests") {
		o.wf.MaxRequests = 80
	}
	if !cmd.Flags().Changed("rate") && !cmd.Flags().Changed("time-scale") && o.wf.Trace == "" {
		o.wf.Rate = 20
	}
}

// benchOne runs one policy on a fresh fleet (or the given targets, or
// a fresh simulation).
// quiet turns its progress display off (for runs side by side).
func benchOne(ctx context.Context, cmd *cobra.Command, o *benchOptions, ro reports.Options, router string, quiet bool) (*reports.Summary, error) {
	rs := runSpec{Workload: o.wf, Policy: o.pf, Client: o.cf, Report: ro, Router: router,
		Results: bench.ResultsPath(o.out, bench.PolicyName(router, o.pf.Queue)), ErrOut: cmd.ErrOrStderr(), Quiet: quiet}
	stop, err := o.mf.backends(ctx, &rs, o.targets)
	if err != nil {
		return nil, err
	}
	defer stop()
	o.live.before(ctx, &rs, router)
	return bench.Run(ctx, rs)
}

// writeBench prints the table and writes the report files for what ran,
// then returns cause (nil, an error, or the interrupt).
func writeBench(cmd *cobra.Command, o *benchOptions, runs []*reports.Summary, cause error) error {
	if len(runs) > 0 {
		if err := writeReportsVerdict(cmd, o.out, runs, o.verdict); err != nil {
			return err
		}
	}
	if cause != nil && errors.Is(cause, context.Canceled) {
		return ErrInterrupted
	}
	return cause
}

// writeReports prints the comparison table and writes report.md and
// summary.csv into dir.
func writeReports(cmd *cobra.Command, dir string, runs []*reports.Summary) error {
	if err := reports.WriteTable(cmd.OutOrStdout(), runs); err != nil {
		return err
	}
	if err := writeReportFiles(dir, runs); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nreport: %s\n", filepath.Join(dir, "report.md"))
	return nil
}
