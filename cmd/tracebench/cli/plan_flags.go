package cli

import (
	"strings"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
)

// planDefaultPolicies are planned when --policies is not given: the
// round-robin baseline, a load-aware router and a prefix-aware one.
var planDefaultPolicies = []string{"round-robin", "least-request", "prefix-cache"}

// planOptions are the flags of `tracebench plan`.
type planOptions struct {
	wf workloadFlags
	pf policyFlags
	so flags.SLO
	mf fleetFlags
	// policies are the routers planned (default planDefaultPolicies).
	policies string
	// attainment is the SLA attainment a fleet must reach (default 0.9).
	attainment float64
	// maxReplicas is the largest fleet tried (default 64); seeds the
	// seeds every fleet must meet the SLO on (default 1); pdSize the
	// P/D fleet whose splits are searched (0: none); jobs the routers
	// planned at once (0: GOMAXPROCS).
	maxReplicas int
	seeds       int
	pdSize      int
	jobs        int
	// check runs the first met row on the real-time mock over
	// checkRequests Requests (default 200).
	check         bool
	checkRequests int
	// out is the report directory; keepRuns keeps every run's results
	// file under out/runs.
	out      string
	keepRuns bool
}

// planHiddenFlags are flags of the shared groups that a plan does not
// take: it simulates its own fleets, and its check runs the mock in real
// time against the same SLO (refused with a hint when given).
var planHiddenFlags = []string{"sim", "mock", "targets-file", "resolve-every", "kv-events", "kv-events-listen",
	"kv-events-topic", "kv-events-topics", "time-scale", "shard", "mock-lora-modules", "mock-time-scale"}

// planRefusal says why plan does not take the flag f.
func planRefusal(f string) string {
	switch f {
	case "time-scale":
		return "plan rescales a trace's times to --rate itself"
	case "mock-time-scale":
		return "--check runs the mock in real time, against the plan's own SLO"
	}
	return "plan simulates its own fleet of each size; give the load with --rate or --users"
}

// bindPlan adds plan's own flags.
func (o *planOptions) bindPlan(fs *pflag.FlagSet) {
	fs.StringVar(&o.mf.Profile, "profile", "", "engine profile of the replicas: a built-in `name` ('tracebench profiles') "+
		"or a YAML file (the same as --mock-profile)")
	fs.StringVar(&o.policies, "policies", "", "comma-separated routers to plan (default: "+strings.Join(planDefaultPolicies, ",")+")")
	fs.Float64Var(&o.attainment, "attainment", 0.9, "SLA attainment a fleet must reach, in (0, 1]")
	fs.IntVar(&o.maxReplicas, "max-replicas", 64, "largest fleet tried; a target it cannot meet is reported with the largest load it met")
	fs.IntVar(&o.seeds, "seeds", 1, "a fleet meets the target only when it does on each of N seeds of the workload and engines")
	fs.IntVar(&o.pdSize, "pd-size", 0, "also find the prefill:decode split of a P/D fleet of N replicas that serves the most under the SLO (0: none)")
	fs.IntVar(&o.jobs, "jobs", 0, "routers planned at once (0 = GOMAXPROCS)")
	fs.BoolVar(&o.check, "check", false, "run the first met answer on the real-time mock fleet (loopback) and state the error of the virtual-time figures")
	fs.IntVar(&o.checkRequests, "check-requests", 200, "requests of the --check runs")
	fs.StringVarP(&o.out, "out", "o", "tracebench-plan", "directory for plan.md, plan.csv, plan.json (and runs/ with --keep-runs)")
	fs.BoolVar(&o.keepRuns, "keep-runs", false, "keep every simulated run's results file under --out/runs")
}

// validate checks the flags; changed says which were given.
func (o *planOptions) validate(changed func(string) bool) error {
	for _, f := range planHiddenFlags {
		if changed(f) {
			return usagef("--%s: %s", f, planRefusal(f))
		}
	}
	switch {
	case changed("rate") && changed("users"):
		return usagef("--rate and --users are exclusive: plan for a request rate or for a number of concurrent users")
	case o.wf.Rate == 0 && o.wf.Sessions.Users == 0:
		return usagef("plan needs a target: --rate R (req/s) or --users N (concurrent closed-loop users), above 0")
	case o.wf.Rate < 0:
		return usagef("--rate %g: want a rate > 0 in req/s", o.wf.Rate)
	case changed("profile") && changed("mock-profile"):
		return usagef("--profile and --mock-profile are the same flag: give one")
	case o.maxReplicas < 1:
		return usagef("--max-replicas %d: want ≥ 1", o.maxReplicas)
	case o.seeds < 1:
		return usagef("--seeds %d: want ≥ 1", o.seeds)
	case o.pdSize == 1 || o.pdSize < 0:
		return usagef("--pd-size %d: want ≥ 2 (one prefill and one decode replica), or 0 for none", o.pdSize)
	case !(o.attainment > 0 && o.attainment <= 1):
		return usagef("--attainment %g: want a fraction in (0, 1]", o.attainment)
	case o.checkRequests < 1:
		return usagef("--check-requests %d: want ≥ 1", o.checkRequests)
	case o.jobs < 0:
		return usagef("--jobs %d: want ≥ 0", o.jobs)
	}
	return nil
}

// planPolicies resolves --policies, checking every name.
func (o *planOptions) planPolicies() ([]string, error) {
	if o.policies == "" {
		return planDefaultPolicies, nil
	}
	return parseRouters(o.policies)
}

// planFlagNames name the flags behind the PlanSpec fields the library's
// errors name.
var planFlagNames = map[string]string{
	"PlanSpec.Rate": "--rate / --users", "PlanSpec.Attainment": "--attainment", "PlanSpec.MaxReplicas": "--max-replicas",
	"PlanSpec.Seeds": "--seeds", "PlanSpec.PDSize": "--pd-size", "PlanSpec.Routers": "--policies",
}
