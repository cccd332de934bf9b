package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/plan"
	"github.com/tracebench/tracebench/reports"
)

func init() { register(newPlanCmd) }

func newPlanCmd() *cobra.Command { return planCommand(&planOptions{}) }

// planCommand builds `tracebench plan` around o, which parsing fills.
func planCommand(o *planOptions) *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "plan",
		Short: "Find the fewest replicas each router needs for a target rate or number of users under the SLO",
		Long: `plan finds, in virtual time, the fewest replicas of an engine profile each
router needs to serve a target load, --rate R req/s (a trace's own times
rescaled to R) or --users N concurrent closed-loop users, with at least
--attainment of requests meeting the SLO on every --seeds seed. Fleet sizes
1, 2, 4, ... are tried up to --max-replicas, then bisected to the fewest. A
target the largest fleet cannot meet is reported with the largest load it
met. --pd-size N also finds the prefill:decode split of N replicas that
serves the most under the SLO. --check runs the first answer again on the
real-time mock fleet and states the error of the virtual-time figures.
See docs/plan.md.

Writes DIR/plan.md, DIR/plan.csv and DIR/plan.json.`,
		Args: cobra.NoArgs,
	}, o)
}

// bind declares plan's flags: the workload's, the policy's, the SLO's,
// the fleet's, then its own.
func (o *planOptions) bind(fs *pflag.FlagSet) {
	flags.BindWorkload(fs, &o.wf, "mixed")
	flags.BindPolicy(fs, &o.pf, false)
	o.so.Bind(fs)
	o.mf.bind(fs)
	o.bindPlan(fs)
	fs.Lookup("rate").Usage = "target rate in req/s: a trace's own times rescaled to it, a generator's arrivals drawn at it"
	fs.Lookup("users").Usage = "target number of concurrent closed-loop users (instead of --rate)"
	for _, f := range planHiddenFlags {
		_ = fs.MarkHidden(f)
	}
}

// run plans the fleets and writes the report.
func (o *planOptions) run(cmd *cobra.Command, _ []string) error {
	spec, err := o.prepare(cmd.Flags().Changed, libOut(cmd.ErrOrStderr()))
	if err != nil {
		return err
	}
	res, runErr := plan.Plan(cmd.Context(), spec)
	if runErr == nil && o.check {
		res.Check, runErr = o.runCheck(cmd.Context(), spec, res)
	}
	// A plan stopped part way has no answer to give: a row whose search
	// was cut would read as a target not met.
	if runErr == nil {
		runErr = writePlan(cmd.OutOrStdout(), o.out, res)
	}
	if errors.Is(runErr, ErrInterrupted) {
		return ErrInterrupted
	}
	return flagErr(runErr, planFlagNames)
}

// writePlan writes the report files into dir and the table to out.
func writePlan(out io.Writer, dir string, res *reports.Plan) error {
	if err := reports.WritePlanDir(dir, res); err != nil {
		return err
	}
	reports.WritePlanMarkdown(out, res)
	fmt.Fprintf(out, "plan took %.1f s\nreport: %s\n", res.Seconds, filepath.Join(dir, "plan.md"))
	return nil
}

// prepare validates the flags (changed says which were given), resolves
// the defaults, the engine and the price, and returns the plan to run.
func (o *planOptions) prepare(changed func(string) bool, errOut io.Writer) (plan.Spec, error) {
	if err := o.validate(changed); err != nil {
		return plan.Spec{}, err
	}
	if err := o.pf.LoadConfig(changed, false); err != nil {
		return plan.Spec{}, err
	}
	names, err := o.planPolicies()
	if err != nil {
		return plan.Spec{}, err
	}
	ro, err := routersReport(&o.pf, &o.so, names)
	if err != nil {
		return plan.Spec{}, err
	}
	base, profileName, err := o.baseSpec(ro, errOut)
	if err != nil {
		return plan.Spec{}, err
	}
	spec := plan.Spec{Base: base, Routers: names, Rate: o.wf.Rate, Users: o.wf.Sessions.Users, Profile: profileName,
		Attainment: o.attainment, MaxReplicas: o.maxReplicas, Seeds: o.seeds, PDSize: o.pdSize, Jobs: o.planJobs(len(names)),
		ErrOut: errOut}
	if o.keepRuns {
		spec.Out = o.out
	}
	return spec, o.native(&spec)
}

// baseSpec is every run's Spec: the workload (with a generator, 2000
// requests unless --max-requests says), the policy, the report options
// priced by --cost-per-hour or the profile, and the engine.
func (o *planOptions) baseSpec(ro metrics.Options, errOut io.Writer) (runSpec, string, error) {
	n := o.wf.MaxRequests
	if n == 0 {
		n = 2000
	}
	sizeGenerator(&o.wf, n)
	wf := o.wf
	wf.Rate, wf.Sessions.Users = 0, 0
	base := runSpec{Workload: wf, Policy: o.pf, Client: bench.DefaultClient(), Report: ro, ErrOut: errOut}
	cfg, err := o.mf.engineConfig()
	if err != nil {
		return base, "", err
	}
	base.Fleet, base.Preset, base.KVDelay = &cfg, o.mf.presetName(), o.mf.kv.Delay
	o.mf.priceRun(&base, false)
	return base, o.mf.profileName(), nil
}

// native measures the workload's own rate for rescaling a trace to
// --rate, and names the workload.
func (o *planOptions) native(spec *plan.Spec) error {
	rate, ident, err := bench.NativeRate(spec.Base.Workload)
	if err != nil {
		return err
	}
	spec.Ident = ident
	if o.wf.Trace != "" && spec.Rate > 0 {
		if !(rate > 0) {
			return usagef("--trace %s: its requests span no time, so it has no rate to rescale to --rate", o.wf.Trace)
		}
		spec.Native = rate
	}
	return nil
}

// planJobs is how many of n routers are planned at once.
func (o *planOptions) planJobs(n int) int {
	if o.jobs > 0 {
		return min(o.jobs, n)
	}
	return min(runtime.GOMAXPROCS(0), n)
}

// runCheck runs the first met row on the real-time mock fleet.
func (o *planOptions) runCheck(ctx context.Context, spec plan.Spec, res *reports.Plan) (*reports.PlanCheck, error) {
	for i, r := range res.Rows {
		if !r.Met() {
			continue
		}
		f, err := o.mf.mockFleet()
		if err != nil {
			return nil, err
		}
		return plan.Check(ctx, spec, spec.Routers[i], r.Replicas, o.checkRequests, f)
	}
	fmt.Fprintln(spec.ErrOut, "plan: --check skipped: no router met the target")
	return nil, nil
}
