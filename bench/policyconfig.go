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
	"github.com/tracebench/tracebench/traces"
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
		return fmt.Errorf("Spec.Policy.PolicyConfig: %w", err)
	}
	c, err := policies.ParsePolicyConfig(p.PolicyConfig, data)
	if err != nil {
		return UsageError{Field: "Spec.Policy.PolicyConfig", Err: err} // names the file, line and field
	}
	if withRouter {
		if err := takeName(&p.Router, c.Router.Name, "Router", "router", p.PolicyConfig, changed); err != nil {
			return err
		}
	}
	if err := takeName(&p.Queue, c.Queue.Name, "Queue", "queue", p.PolicyConfig, changed); err != nil {
		return err
	}
	p.file = &c
	return nil
}

// takeName sets *to, the Policy field named field, to the name the file
// gives for kind unless changed(field's flag) says it was given; given
// and naming another policy, it is a usage error naming the field.
func takeName(to *string, name, field, kind, file string, changed func(string) bool) error {
	path := "Spec.Policy." + field
	switch {
	case name == "":
	case !changed(policyFlags[field]):
		*to = name
	case *to != name:
		return fieldf(path, "%s %s but Spec.Policy.PolicyConfig %s names %s %s: give one, or the same in both",
			path, *to, file, kind, name)
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
	return fieldf("Spec.Policy.PolicyConfig", "Spec.Policy.PolicyConfig %s sets router %s, which is not among the routers run (%s); add it to CompareSpec.Routers",
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

// buildPolicy constructs pf's Router and Queue, flags over the
// --policy-config file (loaded by loadConfig, or here when it was not),
// and resolves the parameters they run with.
func buildPolicy(pf Policy, seed uint64) (builtPolicy, error) {
	router := pf.Router
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
		return b, policyErr("Spec.Policy.Router", pf, fromFile[0], err)
	}
	if b.queue, err = policies.NewQueue(pf.Queue, qp, rand.New(rand.NewPCG(seed, 0x7175))); err != nil {
		return b, policyErr("Spec.Policy.Queue", pf, fromFile[1], err)
	}
	if b.routerParams, err = policies.Resolve(policies.KindRouter, router, rp); err != nil {
		return b, policyErr("Spec.Policy.Router", pf, fromFile[0], err)
	}
	if err := applyFilter(&b, pf); err != nil {
		return b, err
	}
	if b.queueParams, err = policies.Resolve(policies.KindQueue, pf.Queue, qp); err != nil {
		return b, policyErr("Spec.Policy.Queue", pf, fromFile[1], err)
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
			return fieldf("Spec.Policy.FilterArgs", "Spec.Policy.FilterArgs given without Spec.Policy.Filter")
		}
		return nil
	}
	if spec, err := policies.Lookup(policies.KindQueue, pf.Queue); err == nil && spec.PicksBackends {
		return fieldf("Spec.Policy.Filter", "Spec.Policy.Filter %s cannot compose with Spec.Policy.Queue %s: that queue picks the backend of every request itself, "+
			"so no router or filter sees them", pf.Filter, pf.Queue)
	}
	fp := policies.Params{}
	if err := mergeArgs(fp, "Spec.Policy.FilterArgs", pf.FilterArgs, policies.KindFilter, pf.Filter); err != nil {
		return err
	}
	var err error
	if b.router, err = policies.NewFilter(pf.Filter, fp, b.router); err != nil {
		return fieldf("Spec.Policy.Filter", "Spec.Policy.Filter: %v", err)
	}
	full, err := policies.Resolve(policies.KindFilter, pf.Filter, fp)
	if err != nil {
		return fieldf("Spec.Policy.Filter", "Spec.Policy.Filter: %v", err)
	}
	b.routerParams["filter"] = traces.ParamString(pf.Filter)
	for k, v := range full {
		b.routerParams["filter."+k] = v
	}
	return nil
}

// mergeArgs adds args to dst as the Params of the named policy of kind:
// a value of another kind than the policy declares is a usage error
// naming field. For a policy not registered they are added as given,
// for NewRouter, NewQueue or NewFilter to name the unknown policy.
func mergeArgs(dst policies.Params, field string, args policies.Args, kind policies.Kind, name string) error {
	if _, err := policies.Lookup(kind, name); err != nil {
		for _, p := range args {
			dst[p.Name] = p.Value
		}
		return nil
	}
	p, err := args.Params(kind, name)
	if err != nil {
		return fieldf(field, "%s: %v", field, err)
	}
	maps.Copy(dst, p)
	return nil
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
	if err := mergeArgs(rp, "Spec.Policy.RouterArgs", pf.RouterArgs, policies.KindRouter, router); err != nil {
		return nil, nil, fromFile, err
	}
	if err := mergeArgs(qp, "Spec.Policy.QueueArgs", pf.QueueArgs, policies.KindQueue, pf.Queue); err != nil {
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
	spec, err := policies.Lookup(policies.KindQueue, pf.Queue)
	if err != nil || !slices.ContainsFunc(spec.Params, func(p policies.ParamSpec) bool { return p.Name == "weights" }) {
		return nil
	}
	if _, given := qp["weights"]; given {
		return fieldf("Spec.Policy.QueueArgs", "Spec.Report.SLO.PerUser gives per-user weights and the queue parameter weights (Spec.Policy.QueueArgs or Spec.Policy.PolicyConfig) sets them too; give them in one place")
	}
	users := slices.Sorted(maps.Keys(pf.sloWeights))
	parts := make([]string, len(users))
	for i, u := range users {
		parts[i] = u + "=" + strconv.FormatFloat(pf.sloWeights[u], 'g', -1, 64)
	}
	qp["weights"] = traces.ParamString(strings.Join(parts, ","))
	return nil
}

// policyErr is a usage error for a policy that cannot be built, naming
// its field and, when it gave parameters, the PolicyConfig file.
func policyErr(field string, pf Policy, fromFile bool, err error) error {
	if fromFile {
		return fieldf(field, "%s (parameters from Spec.Policy.PolicyConfig %s): %v", field, pf.PolicyConfig, err)
	}
	return fieldf(field, "%s: %v", field, err)
}

// policyFlags are the flags LoadConfig's changed takes for the Policy
// fields a PolicyConfig file can name.
var policyFlags = map[string]string{"Router": "policy", "Queue": "queue"}
