package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/verdict"
)

// decideRequests is the Requests of every stage-1 run of the two-stage
// bench, --quick's too. With the mixed workload's own
// 300, a run is mostly its start: the decidePreset fleet of 4 absorbs
// much of it at any rate, so a seed's capacity swung by 5× and 3 seeds
// tied every pair; with 1,000 the fleet reaches its steady state and
// the capacity is the fleet's, not the burst's.
const decideRequests = 1000

// decideSeeds is stage 1's seeds by default, --quick's too (stage 2
// runs the first 3).
const decideSeeds = bench.DefaultDecideSeeds

// decidePreset is the engine profile of the two-stage bench when no
// --mock- engine flag is given: the default engine with 512 KV blocks per
// replica, the cache pressure under which routers differ, so that a run
// of a few hundred requests reaches the fleet's steady state (with the
// default profile's 16,384 blocks a fleet of 4 holds about 1,000 requests
// of the mixed workload at once and absorbs a whole run at any rate).
const decidePreset = "small-kv"

// decideQuickWall is --quick's wall time of a stage-2 run (the default's
// is bench.DecideSpec's 25 s); --quick confirms only the leader and
// round-robin, 6 runs instead of 9.
const decideQuickWall = 15 * time.Second

// twoStage reports whether bench runs its two-stage decision: no backend
// flag (--sim, --mock, --target, --targets-file) was given.
func (o *benchOptions) twoStage(changed func(string) bool) bool {
	return !changed("sim") && !changed("mock") && len(o.targets) == 0 && o.mf.TargetsFile == ""
}

// decideSpec checks the flags and turns them into the two-stage run.
func (o *benchOptions) decideSpec(cmd *cobra.Command) (bench.DecideSpec, error) {
	changed := cmd.Flags().Changed
	names, err := benchPolicies(o.policies, o.quick)
	if err != nil {
		return bench.DecideSpec{}, err
	}
	if err := o.pf.LoadConfig(changed, false); err != nil {
		return bench.DecideSpec{}, err
	}
	if err := o.pf.CheckConfigRouter(names); err != nil {
		return bench.DecideSpec{}, err
	}
	seeds := o.seeds
	if !changed("seeds") {
		seeds = decideSeeds
	}
	if seeds < 1 {
		return bench.DecideSpec{}, usagef("--seeds %d: want ≥ 1", seeds)
	}
	if changed("rate") || changed("time-scale") || changed("users") {
		return bench.DecideSpec{}, usagef("--rate, --time-scale and --users: bench without a backend flag finds each " +
			"policy's capacity itself; give --mock N (or --sim N, --target) to run at one load")
	}
	o.decideDefaults(changed)
	if !o.mf.engineChanged() {
		o.mf.Profile = decidePreset
	}
	ro, err := o.so.Options()
	if err != nil {
		return bench.DecideSpec{}, err
	}
	mock, err := o.mf.mockFleet()
	if err != nil {
		return bench.DecideSpec{}, err
	}
	native, ident, err := bench.NativeRate(o.wf)
	if err != nil {
		return bench.DecideSpec{}, err
	}
	errOut := libOut(cmd.ErrOrStderr())
	spec := bench.DecideSpec{Base: runSpec{Workload: o.wf, Policy: o.pf, Client: o.cf, Report: ro, ErrOut: errOut},
		Routers: names, Seeds: seeds, Native: native, Ident: ident, Sim: o.simSetup, SimFleet: o.simFleet(), Mock: mock,
		Jobs: o.jobs, ProfileNote: profileNote(o.mf, false), Out: o.out, ErrOut: errOut}
	if o.wf.Sessions.Pacing == string(replay.SessionsClosed) {
		// Closed-loop users set their own rate: capacity is users.
		spec.Vary = verdict.VaryUsers
	}
	if o.quick {
		spec.ConfirmWall, spec.Leaders = decideQuickWall, 1
	}
	return spec, nil
}

// decideDefaults sets the Requests of every run when not given.
func (o *benchOptions) decideDefaults(changed func(string) bool) {
	if !changed("max-requests") {
		o.wf.MaxRequests = decideRequests
	}
	sizeGenerator(&o.wf, o.wf.MaxRequests)
}

// simSetup points a stage-1 run at --mock replicas simulated in virtual
// time, the engines' seed shifted by the run's seed offset.
func (o *benchOptions) simSetup(ctx context.Context, rs *runSpec) (func(), error) {
	m := o.runFleet(rs)
	m.Sim = m.Replicas
	return m.backends(ctx, rs, nil)
}

// simFleet describes stage 1's fleet.
func (o *benchOptions) simFleet() string {
	return fmt.Sprintf("%d replicas of engine profile %s", o.mf.Replicas, o.mf.profileName())
}

// runDecide runs the two-stage bench and prints the verdict, the
// table of stage 2's first seed and where the report is; with one
// router, that there is nothing to decide and its capacity.
func runDecide(cmd *cobra.Command, o *benchOptions) error {
	spec, err := o.decideSpec(cmd)
	if err != nil {
		return err
	}
	res, err := bench.Decide(cmd.Context(), spec)
	out := cmd.OutOrStdout()
	if res.Alone != nil {
		writeAlone(wrapWriter{out, termWidth}, res, spec.ProfileNote)
	}
	if res.Decision != nil && res.Decision.CapacityVerdict != nil {
		fmt.Fprintln(out)
		res.Decision.WriteText(wrapWriter{out, termWidth})
	}
	if len(res.Runs) > 0 {
		fmt.Fprintln(out)
		writeCostRank(out, o.rank, res.Runs)
		fmt.Fprintf(out, "stage 2, first seed (latencies in wall time, %.3g× the model's):\n", res.Decision.TimeScale)
		if werr := writeBenchTable(out, res.Runs, o.wide); werr != nil {
			return werr
		}
	}
	if res.Report != "" {
		fmt.Fprint(out, "\n"+reportPaths(res.Report))
	}
	return err
}

// writeAlone prints the capacity of bench's only router: that there is
// nothing to decide, the question and the profile's note.
func writeAlone(out io.Writer, res *bench.DecideResult, profileNote string) {
	fmt.Fprintf(out, "\n%s\n  question: %s\n", res.Alone.Text(), res.Decision.Question)
	if profileNote != "" {
		fmt.Fprintf(out, "  %s\n", profileNote)
	}
}

// writeBenchTable writes the compact comparison table, or every column
// with --wide.
func writeBenchTable(out interface{ Write([]byte) (int, error) }, runs []*metrics.Summary, wide bool) error {
	if wide {
		return reports.WriteWideTable(out, runs)
	}
	return reports.WriteTable(out, runs)
}
