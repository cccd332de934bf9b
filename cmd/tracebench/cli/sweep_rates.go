package cli

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/bench"
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

// nativeRate measures the workload's own mean arrival rate over the
// window each run replays, (n − 1) / (last − first arrival) of its
// Requests at time-scale 1, and returns it (0 when fewer than two
// arrivals or no time between them) with the workload's identity.
func nativeRate(wf workloadFlags) (float64, string, error) {
	wf.Rate, wf.TimeScale = 0, 1
	src, err := bench.OpenSource(wf)
	if err != nil {
		return 0, "", err
	}
	defer src.Close()
	var n int
	var first, last float64
	for {
		r, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, "", err
		}
		at := r.Arrival.Seconds()
		if n == 0 {
			first = at
		}
		last = at
		n++
	}
	if n < 2 || !(last > first) {
		return 0, src.Ident(), nil
	}
	return float64(n-1) / (last - first), src.Ident(), nil
}
