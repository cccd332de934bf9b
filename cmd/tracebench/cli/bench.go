package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/policies"
)

func init() { register(newBenchCmd) }

// benchOptions are the flags of `tracebench bench`.
type benchOptions struct {
	runFlags
	quick    bool
	wide     bool
	jobs     int
	policies string
	out      string
	seeds    int
	rank     string
}

func newBenchCmd() *cobra.Command { return benchCmd(&benchOptions{}) }

// benchCmd is `tracebench bench` with its flags bound into o.
func benchCmd(o *benchOptions) *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "bench",
		Short: "Compare policies on a workload: one replay per policy, one table, a report",
		Long: `bench compares routers on one workload and ends in a verdict.

Without a backend flag it decides in two stages: each router's capacity
under the SLO in virtual time (5 paired seeds, 1,000 requests per run, 4
simulated small-kv replicas), then the two leaders and round-robin in real
time on fresh in-process mock fleets (3 seeds, model time stretched so the
machine keeps the timings honest). It prints the verdict first: the winner,
its margin over the runner-up and over round-robin with 95 % intervals,
or a tie with the interval that makes it one. --quick is the same in short.
With --mock N, --sim N or --target it replays the workload once per policy
at the workload's rate, each on a fresh fleet, side by side.`,
		Args: cobra.NoArgs,
	}, o)
}

// bind declares bench's flags.
func (o *benchOptions) bind(fs *pflag.FlagSet) {
	o.bindRun(fs, false)
	fs.BoolVar(&o.quick, "quick", false, "a short run: 5 routers; without a backend flag stage 2 confirms the leader and round-robin in about 20 s, "+
		"else 80 requests at 20 req/s each")
	fs.BoolVar(&o.wide, "wide", false, "print every column of the comparison table (default: the columns that decide)")
	fs.StringVar(&o.policies, "policies", "", "comma-separated routers to compare (default: every registered router)")
	fs.IntVar(&o.jobs, "jobs", 0, "policies run at once, each on its own fleet (0 = all of them on mock fleets, "+
		"GOMAXPROCS with --sim, 1 with --target; without a backend flag: policies swept at once in stage 1)")
	fs.StringArrayVar(&o.targets, "target", nil, "base `URL` of a live backend (repeatable); default: an in-process mock fleet")
	fs.StringVar(&o.out, "out", "tracebench-out", "directory for report.md, summary.csv, plots and results files")
	fs.StringVar(&o.rank, "rank", "", "cost: first name the cheapest policy whose SLA attainment is ≥ 90 % (cost:0.95 sets it)")
	fs.IntVar(&o.seeds, "seeds", 1, fmt.Sprintf("run every policy on N seeds of the workload and arrivals (and mock "+
		"jitter) for a verdict with a confidence interval (without a backend flag: default %d)", decideSeeds))
}

// benchQuickPolicies are compared by bench --quick: the three baselines
// and two prefix-aware routers.
var benchQuickPolicies = []string{"random", "round-robin", "least-request", "prefix-cache", "cache-aware"}

// benchPolicies resolves --policies, checking every name.
func benchPolicies(list string, quick bool) ([]string, error) {
	switch {
	case list != "":
		return parseRouters(list)
	case quick:
		return registeredRouters(benchQuickPolicies), nil
	}
	return policies.Names(policies.KindRouter), nil
}

// run compares the policies: in two stages without a backend flag,
// else one replay per policy, side by side.
func (o *benchOptions) run(cmd *cobra.Command, _ []string) error {
	if _, err := parseRank(o.rank); err != nil {
		return err
	}
	if o.twoStage(cmd.Flags().Changed) {
		return runDecide(cmd, o)
	}
	spec, err := o.compareSpec(cmd)
	if err != nil {
		return err
	}
	res, err := bench.Compare(cmd.Context(), spec)
	if len(res.Runs) > 0 {
		writeCostRank(cmd.OutOrStdout(), o.rank, res.Runs)
		if werr := printBench(cmd, res, o.wide); werr != nil {
			return werr
		}
	}
	return err
}

// compareSpec checks the flags and turns them into the comparison to
// run: the routers, the base Run, and a Setup starting each Run's fleet
// (a fresh mock fleet, a simulation or the live targets).
func (o *benchOptions) compareSpec(cmd *cobra.Command) (bench.CompareSpec, error) {
	names, err := benchPolicies(o.policies, o.quick)
	if err != nil {
		return bench.CompareSpec{}, err
	}
	if o.seeds < 1 {
		return bench.CompareSpec{}, usagef("--seeds %d: want ≥ 1", o.seeds)
	}
	if err := o.pf.LoadConfig(cmd.Flags().Changed, false); err != nil {
		return bench.CompareSpec{}, err
	}
	ro, err := routersReport(&o.pf, &o.so, names)
	if err != nil {
		return bench.CompareSpec{}, err
	}
	if o.quick {
		quickDefaults(cmd, o)
	}
	targets, err := o.mf.allTargets(cmd.Context(), o.targets)
	if err != nil {
		return bench.CompareSpec{}, err
	}
	o.targets, o.mf.TargetsFile = targets, "" // read once
	errOut := libOut(cmd.ErrOrStderr())
	base := runSpec{Workload: o.wf, Policy: o.pf, Client: o.cf, Report: ro, ErrOut: errOut, Sim: o.mf.Sim}
	return bench.CompareSpec{Base: base, Routers: names, Out: o.out, Jobs: o.jobs, Setup: o.setup,
		Targets: o.targets, Seeds: o.seeds, ProfileNote: profileNote(o.mf, len(o.targets) > 0),
		ErrOut: errOut}, nil
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

// printBench prints the verdict, the comparison table and where the
// report is.
func printBench(cmd *cobra.Command, res *bench.CompareResult, wide bool) error {
	out := cmd.OutOrStdout()
	if res.Verdict != nil {
		res.Verdict.WriteText(wrapWriter{out, termWidth})
		fmt.Fprintln(out)
	}
	if err := writeBenchTable(out, res.Runs, wide); err != nil {
		return err
	}
	if res.Report != "" {
		fmt.Fprint(out, "\n"+reportPaths(res.Report))
	}
	return nil
}
