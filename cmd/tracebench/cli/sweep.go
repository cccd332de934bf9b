package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/reports"
)

func init() { register(newSweepCmd) }

// sweepDefaultPolicies are swept when --policies is not given (those
// registered, in this order): the round-robin baseline, a load-aware
// router and three prefix-aware ones.
var sweepDefaultPolicies = []string{"round-robin", "least-request", "prefix-cache", "approx-prefix", "cache-aware"}

// sweepOptions are the flags of `tracebench sweep`.
type sweepOptions struct {
	runFlags
	policies string
	baseline string
	// attainment is the SLA attainment a sustained rate keeps (default
	// 0.9: DistServe, Zhong et al., OSDI 2024, rates a system by the
	// highest rate at which 90 % of requests meet their SLO).
	attainment float64
	// rates is the fixed ladder; startRate, growth, tolerance (default
	// 0.04) and maxRuns (default 12) set the search, as the defaults of
	// search.Options. growth defaults to 4 in sim and mock (a
	// bracket from the workload's rate to 60x its rate in 4 runs) and 2
	// against live targets (never more than double a passing rate).
	rates     string
	startRate string
	growth    float64
	tolerance float64
	maxRuns   int
	// jobs is how many policies are swept at once (--sim only; 0 =
	// GOMAXPROCS).
	jobs int
	vary string
	// cooldown is the pause between runs (default 10 s against live
	// targets, enough for vLLM's queues to drain and its gauges, scraped
	// every second by default, to settle; 0 otherwise).
	cooldown time.Duration
	// maxErrorRate stops a run as soon as its error rate exceeds it
	// (errorLimit), and the policy's sweep with it (default 0.05: past
	// 5 % failed requests a fleet is failing, not slowing down).
	maxErrorRate float64
	out          string
	seeds        int
}

func newSweepCmd() *cobra.Command { return sweepCommand(&sweepOptions{}) }

// sweepCommand builds the command around o, which parsing fills.
func sweepCommand(o *sweepOptions) *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "sweep",
		Short: "Find each policy's sustained rate under an SLA: a search or a fixed ladder of rates",
		Long: `sweep runs one workload per policy at a series of offered rates and reports,
for each policy, the highest rate at which SLA attainment stays at or above
--attainment: the sustained rate, its goodput and latency percentiles, the
gain over --baseline, and where the policy broke (TTFT, TPOT or errors).
The rates are a fixed ladder (--rates) or a search (--growth, then bisection
to --tolerance); --vary rate sets Poisson arrivals at the rate, --vary
time-scale divides the trace's own times. Every run replays the same
--max-requests Requests; with --sim N the sweep is deterministic. See
docs/sweep.md.

Writes DIR/sweep.md, DIR/report.html, DIR/sweep.csv, DIR/plots/sweep-capacity.svg and each
run's results file under DIR/runs/.`,
		Args: cobra.NoArgs,
	}, o)
}

// bind declares the sweep's flags: the run's, then its own.
func (o *sweepOptions) bind(fs *pflag.FlagSet) {
	o.bindRun(fs, false)
	o.bindSweep(fs)
	// The sweep sets each run's rate; validate rejects these with a hint.
	for _, f := range []string{"rate", "time-scale"} {
		_ = fs.MarkHidden(f)
	}
}

// bindSweep adds the sweep's own flags.
func (o *sweepOptions) bindSweep(fs *pflag.FlagSet) {
	fs.StringVar(&o.policies, "policies", "", "comma-separated routers to sweep (default: "+strings.Join(sweepDefaultPolicies, ",")+")")
	fs.StringVar(&o.baseline, "baseline", "round-robin", "policy the gains are measured against; when not given and round-robin is not swept, the first policy")
	fs.Float64Var(&o.attainment, "attainment", 0.9, "SLA attainment a sustained rate keeps, in (0, 1]")
	fs.StringVar(&o.rates, "rates", "", "fixed rates in req/s, e.g. 1,2,4 or 0.5x,1x (default: search)")
	fs.StringVar(&o.startRate, "start-rate", "", "first rate of the search in req/s or as a multiple like 2x (default: the workload's own rate, else 1)")
	fs.Float64Var(&o.growth, "growth", 0, "search: factor the rate grows by until a run fails (default 4 with --sim or --mock, 2 with --target)")
	fs.Float64Var(&o.tolerance, "tolerance", 0.04, "search: stop when the failing and passing rates are within this fraction")
	fs.IntVar(&o.maxRuns, "max-runs", 12, "search: most runs per policy")
	fs.IntVar(&o.jobs, "jobs", 0, "policies swept at once with --sim (0 = GOMAXPROCS; real time: 1)")
	fs.StringVar(&o.vary, "vary", "rate", "load offered: rate (--arrival), time-scale (trace times divided) or users (--rates counts users)")
	fs.DurationVar(&o.cooldown, "cooldown", 0, "pause between runs (default 0 with --sim or --mock, 10s with --target)")
	fs.Float64Var(&o.maxErrorRate, "max-error-rate", 0.05, "stop a run, and its policy's sweep, as soon as the run's error rate exceeds this (from its 20th result on), in [0, 1]")
	fs.StringArrayVar(&o.targets, "target", nil, "base `URL` of a live backend (repeatable; default: a mock fleet per run)")
	fs.StringVar(&o.out, "out", "tracebench-sweep", "directory for sweep.md, sweep.csv, plots, runs/")
	fs.IntVar(&o.seeds, "seeds", 1, "sweep every policy on N seeds of the workload and arrivals (and mock jitter) for a verdict with a confidence interval")
}

// live reports whether the runs go to live targets.
func (o *sweepOptions) live() bool { return len(o.targets) > 0 }

// defaultRequests is the Requests per run when --max-requests is not
// given: 2000 with --sim, 1000 with the real-time mock, 400 against live
// targets. A run must be long enough for queues to reach their steady
// state at overload; on the mixed workload 1000 simulated requests still
// leave attainment flat over ±3 % of rate around the knee, 2000 make the
// knee sharp.
func (o *sweepOptions) defaultRequests() int {
	switch {
	case o.live():
		return 400
	case o.mf.Sim > 0:
		return 2000
	}
	return 1000
}

// resolveDefaults fills the defaults that depend on where runs go, for
// flags not given.
func (o *sweepOptions) resolveDefaults(changed func(string) bool) {
	if !changed("max-requests") {
		o.wf.MaxRequests = o.defaultRequests()
	}
	if !changed("growth") {
		o.growth = 4
		if o.live() {
			o.growth = 2
		}
	}
	if !changed("cooldown") && o.live() {
		o.cooldown = 10 * time.Second
	}
	if o.wf.MaxRequests > 0 {
		sizeGenerator(&o.wf, o.wf.MaxRequests)
	}
}

// validate checks the sweep's flags; changed says which were given.
func (o *sweepOptions) validate(changed func(string) bool) error {
	for _, f := range []string{"rate", "time-scale", "users"} {
		if changed(f) {
			return usagef("--%s: sweep sets each run's load itself; use --rates or --start-rate (and --vary)", f)
		}
	}
	if o.rates != "" {
		for _, f := range []string{"start-rate", "growth", "tolerance", "max-runs"} {
			if changed(f) {
				return usagef("--%s configures the search; --rates runs a fixed ladder instead", f)
			}
		}
	}
	settings := bench.SweepSpec{Attainment: o.attainment, Tolerance: o.tolerance, MaxRuns: o.maxRuns, Growth: o.growth,
		MaxErrorRate: o.maxErrorRate, Cooldown: o.cooldown, Jobs: o.jobs, Vary: o.vary}
	if err := settings.Validate(); err != nil {
		return err
	}
	switch {
	case o.jobs > 1 && o.mf.Sim == 0:
		return usagef("--jobs %d: only --sim runs go side by side; in real time they would share the machine's cores", o.jobs)
	case o.live() && o.mf.Sim > 0:
		return usagef("--sim and --target are exclusive")
	}
	return nil
}

// sweepPolicies resolves --policies and --baseline, checking every name.
func (o *sweepOptions) sweepPolicies(baselineGiven bool) ([]string, string, error) {
	names := registeredRouters(sweepDefaultPolicies)
	if o.policies != "" {
		var err error
		if names, err = parseRouters(o.policies); err != nil {
			return nil, "", err
		}
	}
	for _, n := range names {
		if n == o.baseline {
			return names, bench.PolicyName(n, o.pf.Queue), nil
		}
	}
	if baselineGiven {
		return nil, "", usagef("--baseline %q is not one of --policies %s", o.baseline, strings.Join(names, ","))
	}
	return names, bench.PolicyName(names[0], o.pf.Queue), nil
}

// prepare validates the flags (changed says which were given), resolves
// the defaults, the policies and the rates, and returns the sweep to run.
func (o *sweepOptions) prepare(changed func(string) bool, errOut io.Writer) (bench.SweepSpec, error) {
	o.resolveDefaults(changed)
	if err := o.validate(changed); err != nil {
		return bench.SweepSpec{}, err
	}
	if err := o.pf.LoadConfig(changed, false); err != nil {
		return bench.SweepSpec{}, err
	}
	names, baseline, err := o.sweepPolicies(changed("baseline"))
	if err != nil {
		return bench.SweepSpec{}, err
	}
	ro, err := routersReport(&o.pf, &o.so, names)
	if err != nil {
		return bench.SweepSpec{}, err
	}
	spec := bench.SweepSpec{Base: runSpec{Workload: o.wf, Policy: o.pf, Client: o.cf, Report: ro, ErrOut: errOut},
		Routers: names, Baseline: baseline, Attainment: o.attainment, Growth: o.growth, Tolerance: o.tolerance,
		MaxRuns: o.maxRuns, Vary: o.vary, Fleet: o.fleet(), Jobs: o.sweepJobs(len(names)), Cooldown: o.cooldown,
		MaxErrorRate: o.maxErrorRate, Out: o.out, ErrOut: errOut,
		Seeds: o.seeds, ProfileNote: profileNote(o.mf, o.live()), Setup: o.setup}
	return spec, o.resolveRates(&spec)
}

// run sweeps every policy and writes the tables and the report.
func (o *sweepOptions) run(cmd *cobra.Command, _ []string) error {
	spec, err := o.prepare(cmd.Flags().Changed, libOut(cmd.ErrOrStderr()))
	if err != nil {
		return err
	}
	if o.seeds < 1 {
		return usagef("--seeds %d: want ≥ 1", o.seeds)
	}
	res, runErr := bench.Sweep(cmd.Context(), spec)
	if len(res.Policies) > 0 {
		if err := reports.WriteSweepTable(cmd.OutOrStdout(), res); err != nil {
			return err
		}
		if res.Verdict != nil {
			fmt.Fprintln(cmd.OutOrStdout())
			res.Verdict.WriteText(cmd.OutOrStdout())
		}
		fmt.Fprint(cmd.OutOrStdout(), "\n"+reportPaths(filepath.Join(o.out, "sweep.md")))
	}
	if runErr != nil && errors.Is(runErr, ErrInterrupted) {
		return ErrInterrupted
	}
	return runErr
}

// fleet describes where the runs go.
func (o *sweepOptions) fleet() string {
	m := o.mf
	preset := m.profileName()
	switch {
	case o.live():
		return "live targets " + strings.Join(o.targets, ", ")
	case m.Sim > 0:
		return fmt.Sprintf("%d simulated mock engines in virtual time (profile %s)", m.Sim, preset)
	}
	return fmt.Sprintf("%d in-process mock replicas, a fresh fleet per run (profile %s)", m.Replicas, preset)
}

// sweepJobs is how many of n policies are swept at once: --jobs, else
// GOMAXPROCS, with --sim; one in real time.
func (o *sweepOptions) sweepJobs(n int) int {
	switch {
	case o.mf.Sim == 0:
		return 1
	case o.jobs > 0:
		return min(o.jobs, n)
	}
	return min(runtime.GOMAXPROCS(0), n)
}
