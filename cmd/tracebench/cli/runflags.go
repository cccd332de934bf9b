package cli

import (
	"context"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/traces"
)

// runFlags are the flag groups of the commands that replay a workload on
// a fleet (bench, replay, sweep): the workload, the policy, the client,
// the SLO and the fleet.
type runFlags struct {
	wf workloadFlags
	pf policyFlags
	cf clientFlags
	so flags.SLO
	mf fleetFlags
	// targets are the --target backends; each command words the flag.
	targets []string
}

// bindRun binds r's flag groups to fs, the workload defaulting to mixed;
// withRouter adds --policy (a run of one router).
func (r *runFlags) bindRun(fs *pflag.FlagSet, withRouter bool) {
	flags.BindWorkload(fs, &r.wf, "mixed")
	flags.BindPolicy(fs, &r.pf, withRouter)
	flags.BindClient(fs, &r.cf)
	r.so.Bind(fs)
	r.mf.bind(fs)
}

// setup points a Run's Spec at its fleet: the targets, a simulation or
// a fresh mock fleet, the mock's seed shifted by the Run's seed offset.
func (r *runFlags) setup(ctx context.Context, rs *runSpec) (func(), error) {
	m := r.runFleet(rs)
	return m.backends(ctx, rs, r.targets)
}

// runFleet is the fleet of one Run of several: the mock's seed shifted
// by the Run's seed offset (its workload seed above --seed).
func (r *runFlags) runFleet(rs *runSpec) fleetFlags {
	m := r.mf
	m.Seed += int64(rs.Workload.Seed - r.wf.Seed)
	return m
}

// routersReport checks that the router of --policy-config, if any, is
// one of names, and returns the report options of the SLO flags.
func routersReport(pf *policyFlags, so *flags.SLO, names []string) (metrics.Options, error) {
	if err := pf.CheckConfigRouter(names); err != nil {
		return metrics.Options{}, err
	}
	return so.Options()
}

// sizeGenerator sets a generated workload's requests parameter to n when
// -p requests is not given: requests is how many Requests the generator
// makes, --max-requests where the Run stops, and a command sizing its
// runs by --max-requests sizes the generator by it too.
func sizeGenerator(w *bench.Workload, n int) {
	if w.Trace != "" {
		return
	}
	if _, given := w.WorkloadArgs.Lookup("requests"); !given {
		w.WorkloadArgs = w.WorkloadArgs.With("requests", traces.ParamInt(n))
	}
}
