package bench

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/policies"
)

// LoadConfig reads the --policy-config file, when one is given, and keeps
// it for Run. The router (withRouter: replay's --policy) and the
// queue the file names are used where their flag was not given (changed
// says which flags were); a flag naming another policy than the file is a
// usage error. An unreadable file is a runtime error, a file that does
// not parse or validate a usage error naming the file and the field.
func (p *Policy) LoadConfig(changed func(string) bool, withRouter bool) error {
	if p.PolicyConfig == "" {
		return nil
	}
	data, err := os.ReadFile(p.PolicyConfig)
	if err != nil {
		return fmt.Errorf("--policy-config: %w", err)
	}
	c, err := policies.ParsePolicyConfig(p.PolicyConfig, data)
	if err != nil {
		return UsageError{Err: err} // names the file, line and field
	}
	if withRouter {
		if err := takeName(&p.Router, c.Router.Name, "policy", "router", p.PolicyConfig, changed); err != nil {
			return err
		}
	}
	if err := takeName(&p.Queue, c.Queue.Name, "queue", "queue", p.PolicyConfig, changed); err != nil {
		return err
	}
	p.file = &c
	return nil
}

// takeName sets *flag to the name the file gives for kind unless --flag
// was given; a given flag naming another policy is a usage error.
func takeName(flag *string, name, flagName, kind, file string, changed func(string) bool) error {
	switch {
	case name == "":
	case !changed(flagName):
		*flag = name
	case *flag != name:
		return usagef("--%s %s but --policy-config %s names %s %s: give one, or the same in both",
			flagName, *flag, file, kind, name)
	}
	return nil
}

// CheckConfigRouter checks that a router the --policy-config file names
// is among the routers bench or sweep runs, since its parameters apply to
// that router only.
func (p *Policy) CheckConfigRouter(routers []string) error {
	if p.file == nil || p.file.Router.Name == "" || slices.Contains(routers, p.file.Router.Name) {
		return nil
	}
	return usagef("--policy-config %s sets router %s, which is not among the routers run (%s); add it to --policies",
		p.PolicyConfig, p.file.Router.Name, strings.Join(routers, ","))
}

// builtPolicy is a Run's Router and Queue with the parameters they were
// built with, fully resolved (defaults, preset, environment, file, flags).
type builtPolicy struct {
	router       policies.Router
	queue        policies.Queue
	routerParams policies.Params
	queueParams  policies.Params
}

// buildPolicy constructs the Router and Queue, flags over the
// --policy-config file (loaded by loadConfig, or here when it was not),
// and resolves the parameters they run with.
func buildPolicy(pf Policy, router string, seed uint64) (builtPolicy, error) {
	if pf.file == nil && pf.PolicyConfig != "" {
		if err := pf.LoadConfig(func(string) bool { return true }, false); err != nil {
			return builtPolicy{}, err
		}
	}
	rp, qp, fromFile, err := policyParams(pf, router)
	if err != nil {
		return builtPolicy{}, err
	}
	b := builtPolicy{}
	if b.router, err = policies.NewRouter(router, rp, rand.New(rand.NewPCG(seed, 0x7261))); err != nil {
		return b, policyErr("--policy", pf, fromFile[0], err)
	}
	if b.queue, err = policies.NewQueue(pf.Queue, qp, rand.New(rand.NewPCG(seed, 0x7175))); err != nil {
		return b, policyErr("--queue", pf, fromFile[1], err)
	}
	if b.routerParams, err = policies.Resolve("router", router, rp); err != nil {
		return b, policyErr("--policy", pf, fromFile[0], err)
	}
	if err := applyFilter(&b, pf); err != nil {
		return b, err
	}
	if b.queueParams, err = policies.Resolve("queue", pf.Queue, qp); err != nil {
		return b, policyErr("--queue", pf, fromFile[1], err)
	}
	return b, nil
}

// applyFilter wraps the Router in the --filter, recording it and its
// parameters among the router parameters as filter and filter.NAME. A
// Queue that picks Backends itself leaves nothing to filter: giving both
// is a usage error naming both.
func applyFilter(b *builtPolicy, pf Policy) error {
	if pf.Filter == "" {
		if len(pf.FilterArgs) > 0 {
			return usagef("--filter-param given without --filter")
		}
		return nil
	}
	if spec, err := policies.Lookup("queue", pf.Queue); err == nil && spec.PicksBackends {
		return usagef("--filter %s cannot compose with --queue %s: that queue picks the backend of every request itself, "+
			"so no router or filter sees them", pf.Filter, pf.Queue)
	}
	fp, err := ParseKV("filter-param", pf.FilterArgs)
	if err != nil {
		return err
	}
	if b.router, err = policies.NewFilter(pf.Filter, fp, b.router); err != nil {
		return usagef("--filter: %v", err)
	}
	full, err := policies.Resolve("filter", pf.Filter, fp)
	if err != nil {
		return usagef("--filter: %v", err)
	}
	b.routerParams["filter"] = pf.Filter
	for k, v := range full {
		b.routerParams["filter."+k] = v
	}
	return nil
}

func mergeKV(dst policies.Params, flag string, pairs []string) error {
	p, err := ParseKV(flag, pairs)
	for k, v := range p {
		dst[k] = v
	}
	return err
}

// PolicyName is the Run's display name: router, plus +queue unless fcfs.
func PolicyName(router, queue string) string {
	if queue == "" || queue == "fcfs" {
		return router
	}
	return router + "+" + queue
}

// policyParams are the parameters given for router and pf.Queue: the
// --policy-config file's (its router section only when it names router
// or no router), then the --router-param / --queue-param flags over them.
// fromFile reports whether the file gave any router or queue parameter.
func policyParams(pf Policy, router string) (rp, qp policies.Params, fromFile [2]bool, err error) {
	rp, qp = policies.Params{}, policies.Params{}
	if c := pf.file; c != nil {
		if c.Router.Name == "" || c.Router.Name == router {
			maps.Copy(rp, c.Router.Params)
			fromFile[0] = len(c.Router.Params) > 0
		}
		if c.Queue.Name == "" || c.Queue.Name == pf.Queue {
			maps.Copy(qp, c.Queue.Params)
			fromFile[1] = len(c.Queue.Params) > 0
		}
	}
	if err := mergeKV(rp, "router-param", pf.RouterArgs); err != nil {
		return nil, nil, fromFile, err
	}
	if err := mergeKV(qp, "queue-param", pf.QueueArgs); err != nil {
		return nil, nil, fromFile, err
	}
	if err := addSLOWeights(qp, pf); err != nil {
		return nil, nil, fromFile, err
	}
	return rp, qp, fromFile, nil
}

// addSLOWeights gives the --slo-file's per-user weights to a queue that
// takes a weights parameter (vtc and its variants, lcf) when neither the
// flags nor the policy file set it; setting it in both places is a usage
// error naming both.
func addSLOWeights(qp policies.Params, pf Policy) error {
	if len(pf.sloWeights) == 0 || pf.Queue == "" {
		return nil
	}
	spec, err := policies.Lookup("queue", pf.Queue)
	if err != nil || !slices.ContainsFunc(spec.Params, func(p policies.ParamSpec) bool { return p.Name == "weights" }) {
		return nil
	}
	if _, given := qp["weights"]; given {
		return usagef("--slo-file gives per-user weights and the queue parameter weights (--queue-param or --policy-config) sets them too; give them in one place")
	}
	users := slices.Sorted(maps.Keys(pf.sloWeights))
	parts := make([]string, len(users))
	for i, u := range users {
		parts[i] = u + "=" + strconv.FormatFloat(pf.sloWeights[u], 'g', -1, 64)
	}
	qp["weights"] = strings.Join(parts, ",")
	return nil
}

// policyErr is a usage error for a policy that cannot be built, naming
// the flag and, when it gave parameters, the --policy-config file.
func policyErr(flag string, pf Policy, fromFile bool, err error) error {
	if fromFile {
		return usagef("%s (parameters from --policy-config %s): %v", flag, pf.PolicyConfig, err)
	}
	return usagef("%s: %v", flag, err)
}
