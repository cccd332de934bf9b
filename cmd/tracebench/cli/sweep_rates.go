package cli

import (
	"math"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/verdict"
)

// rateSpec is a rate from the command line: req/s, or with an "x"
// suffix a multiple of the workload's own rate.
type rateSpec struct {
	v        float64
	multiple bool
}

// parseRateSpec parses "12.5" (req/s) or "2x" (twice the workload's rate).
func parseRateSpec(flag, s string) (rateSpec, error) {
	t := strings.TrimSpace(s)
	r := rateSpec{}
	if strings.HasSuffix(t, "x") {
		r.multiple, t = true, strings.TrimSuffix(t, "x")
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return r, usagef("--%s %q: want a rate > 0 in req/s, or a multiple of the workload's rate like 2x", flag, s)
	}
	r.v = v
	return r, nil
}

// resolve returns the rate in req/s; a multiple needs the native rate.
func (r rateSpec) resolve(flag string, native float64) (float64, error) {
	if !r.multiple {
		return r.v, nil
	}
	if !(native > 0) {
		return 0, usagef("--%s %vx: the workload's own rate is unknown (fewer than two arrivals or all at once); give req/s", flag, r.v)
	}
	if v := r.v * native; v > 0 && !math.IsInf(v, 0) {
		return v, nil
	}
	return 0, usagef("--%s %vx: %v times the workload's rate %.4g req/s is out of range", flag, r.v, r.v, native)
}

// parseLadder parses --rates, resolving multiples, in the order given.
func parseLadder(s string, native float64) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		spec, err := parseRateSpec("rates", part)
		if err != nil {
			return nil, err
		}
		v, err := spec.resolve("rates", native)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// resolveRates measures the workload's own rate and identity and sets
// spec's ladder (--rates) or the search's first rate (--start-rate, else
// the workload's own rate, else 1 req/s).
func (o *sweepOptions) resolveRates(spec *bench.SweepSpec) error {
	if o.vary == verdict.VaryUsers {
		return o.resolveUsers(spec)
	}
	native, ident, err := bench.NativeRate(o.wf)
	if err != nil {
		return err
	}
	spec.Native, spec.Ident = native, ident
	if o.vary == verdict.VaryTimeScale && !(native > 0) {
		return usagef("--vary time-scale: the workload's arrivals span no time, so it has no rate to scale; use --vary rate")
	}
	if o.rates != "" {
		spec.Ladder, err = parseLadder(o.rates, native)
		return err
	}
	spec.Start = 1
	if native > 0 {
		spec.Start = native
	}
	if o.startRate == "" {
		return nil
	}
	rs, err := parseRateSpec("start-rate", o.startRate)
	if err != nil {
		return err
	}
	spec.Start, err = rs.resolve("start-rate", native)
	return err
}

// defaultStartUsers is the first number of users a users search tries.
const defaultStartUsers = 8

// resolveUsers sets a users sweep's ladder (--rates as whole numbers of
// users) or its first count (--start-rate, default 8).
func (o *sweepOptions) resolveUsers(spec *bench.SweepSpec) error {
	_, ident, err := bench.NativeRate(o.wf)
	if err != nil {
		return err
	}
	spec.Ident = ident
	whole := func(flag, s string) (float64, error) {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 {
			return 0, usagef("--%s %q: with --vary users, want a whole number of users >= 1", flag, s)
		}
		return float64(v), nil
	}
	if o.rates != "" {
		for _, part := range strings.Split(o.rates, ",") {
			v, err := whole("rates", part)
			if err != nil {
				return err
			}
			spec.Ladder = append(spec.Ladder, v)
		}
		return nil
	}
	spec.Start = defaultStartUsers
	if o.startRate != "" {
		spec.Start, err = whole("start-rate", o.startRate)
	}
	return err
}
