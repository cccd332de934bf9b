package traces

// tenantOutputParam is the mean output length of tenant workloads, 128
// tokens by default, scaled by each user's length factor.
var tenantOutputParam = ParamSpec{"output_len", KindInt, "128", "mean output length, tokens (times the user's factor)"}

// newTenantGenerator returns the generator of the named tenant workload,
// limited to the requests parameter, and its tenants, drawn from the
// generator's stream (nil when a parameter is bad).
func newTenantGenerator(p *params, seed uint64, name string) (*generator, *tenants) {
	g := newGenerator(seed, name, p.int("requests", 1))
	return g, readTenants(p, g.rng)
}
