package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// PD configures prefill/decode disaggregation of a Run: Spec.Router
// picks the decode Backend, PrefillRouter the prefill Backend, and a
// Request is disaggregated when its uncached prompt tokens reach
// Threshold (replay.PDOptions).
type PD struct {
	// PrefillRouter names the prefill picker, any registered router
	// (default: Spec.Router); PrefillArgs are its parameters, each of
	// the kind the router declares for its name (as Policy.RouterArgs).
	PrefillRouter string        `json:"prefill_router"`
	PrefillArgs   policies.Args `json:"prefill_args,omitempty"`
	// Roles are the Backends' roles by Index: "prefill", "decode" or
	// "both" (see RolesByRatio for simulated and mock fleets).
	Roles []string `json:"roles"`
	// Threshold is the least number of uncached prompt tokens that
	// disaggregates a Request (default 0: all of them, as llm-d).
	Threshold int `json:"threshold"`
	// Protocol chains the phases on live Backends: "two-step" (default,
	// vLLM's proxy) or "sidecar" (llm-d's x-prefiller-host-port).
	Protocol string `json:"protocol"`
	// RoleOf gives the role of a Backend that joins mid-run by its URL
	// (nil: both); see replay.PDOptions.RoleOf.
	RoleOf func(url string) string `json:"-"`
}

// RolesByRatio returns the roles of a fleet split prefill:decode by ratio
// "P:D" (for example "1:3"): the first P Backends prefill, the next D
// decode. The sum must be the fleet's size n.
func RolesByRatio(ratio string, n int) ([]string, error) {
	ps, ds, ok := strings.Cut(ratio, ":")
	p, err1 := strconv.Atoi(ps)
	d, err2 := strconv.Atoi(ds)
	if !ok || err1 != nil || err2 != nil || p < 0 || d < 0 {
		return nil, fmt.Errorf("ratio %q: want P:D, two whole numbers such as 1:3", ratio)
	}
	if p+d != n {
		return nil, fmt.Errorf("ratio %q: %d prefill + %d decode backends, but the fleet has %d", ratio, p, d, n)
	}
	roles := make([]string, 0, n)
	for i := range n {
		if i < p {
			roles = append(roles, replay.RolePrefill)
		} else {
			roles = append(roles, replay.RoleDecode)
		}
	}
	return roles, nil
}

// buildPD builds the prefill router and checks the roles (nil PD: a Run
// without disaggregation).
func (rs Spec) buildPD() (*replay.PDOptions, error) {
	if rs.PD == nil {
		return nil, nil
	}
	name := rs.PD.PrefillRouter
	if name == "" {
		name = rs.Policy.Router
	}
	params := policies.Params{}
	if err := mergeArgs(params, "Spec.PD.PrefillArgs", rs.PD.PrefillArgs, policies.KindRouter, name); err != nil {
		return nil, err
	}
	r, err := policies.NewRouter(name, params, rand.New(rand.NewPCG(rs.Workload.Seed, 0x7066)))
	if err != nil {
		return nil, fieldf("Spec.PD.PrefillRouter", "Spec.PD.PrefillRouter: %v", err)
	}
	o := &replay.PDOptions{Prefill: r, Roles: rs.PD.Roles, Threshold: rs.PD.Threshold, Protocol: rs.PD.Protocol,
		RoleOf: rs.PD.RoleOf}
	n := len(rs.Backends)
	if rs.Sim > 0 {
		n = rs.Sim
	}
	if len(o.Roles) != n {
		return nil, fieldf("Spec.PD.Roles", "Spec.PD.Roles: %d roles for %d backends", len(o.Roles), n)
	}
	if rs.Sim > 0 && o.Protocol == results.PDSidecar {
		return nil, fieldf("Spec.PD.Protocol", "Spec.PD.Protocol sidecar: simulated engines model the transfer themselves; use it against HTTP backends (live or mock servers)")
	}
	if err := o.Validate(n); err != nil {
		return nil, fieldf("Spec.PD.Roles", "Spec.PD.Roles: %v", err)
	}
	return o, nil
}
