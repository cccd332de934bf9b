package bench

import (
	"strings"

	"github.com/tracebench/tracebench/client"
)

// Validate rejects a Spec that says nowhere to send its Requests or write
// its Results, as a UsageError naming the field.
func (rs Spec) Validate() error {
	switch {
	case rs.Sim < 0:
		return fieldf("Spec.Sim", "Spec.Sim %d: want 0 (HTTP to Spec.Backends) or more simulated engines", rs.Sim)
	case rs.Sim == 0 && len(rs.Backends) == 0:
		return fieldf("Spec.Backends", "Spec.Backends: none; give the servers' base URLs, Spec.Sim simulated engines, "+
			"or start a MockFleet for the Run")
	case rs.Results == "":
		return fieldf("Spec.Results", "Spec.Results: no results file path")
	case !client.ValidAPI(rs.Client.API):
		return fieldf("Spec.Client.API", "Spec.Client.API %q: want %s", rs.Client.API, strings.Join(client.APIs(), ", "))
	}
	return nil
}

// Preflight opens the workload once and builds the policy with each of
// routers, so that a bad Workload or Policy fails once, before any Run
// starts, rather than in every Run of a batch side by side.
func Preflight(w Workload, p Policy, routers []string) error {
	src, err := OpenSource(w)
	if err != nil {
		return err
	}
	src.Close()
	for _, name := range routers {
		p.Router = name
		if _, err := buildPolicy(p, w.Seed); err != nil {
			return err
		}
	}
	return nil
}
