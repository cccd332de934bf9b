package cli

import (
	"strings"

	"github.com/tracebench/tracebench/policies"
)

// parseRouters resolves a comma-separated --policies list, checking
// that every name is a registered router.
func parseRouters(list string) ([]string, error) {
	var names []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if _, err := policies.Lookup(policies.KindRouter, p); err != nil {
			return nil, usagef("--policies: %v", err)
		}
		names = append(names, p)
	}
	return names, nil
}

// registeredRouters keeps, in order, the names that are registered
// routers: a command's default list names routers a build may lack.
func registeredRouters(names []string) []string {
	var out []string
	for _, p := range names {
		if _, err := policies.Lookup(policies.KindRouter, p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
