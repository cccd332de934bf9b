package plan

import (
	"fmt"

	"github.com/tracebench/tracebench/reports"
)

// ReplicaEval runs the target load on n replicas and returns the lowest
// SLA attainment over the seeds and whether the fleet met the target on
// every seed.
type ReplicaEval func(n int) (attainment float64, pass bool, err error)

// FewestReplicas finds the fewest replicas, at most most, for which eval
// passes, assuming more replicas never serve worse: it gallops 1, 2,
// 4, ... (capped at most) until a fleet passes, then bisects between the
// largest failing and the smallest passing size. It returns that size
// (0 when most fails too) and every size tried, in order. A size is
// never run twice.
func FewestReplicas(eval ReplicaEval, most int) (int, []reports.PlanProbe, error) {
	if most < 1 {
		return 0, nil, fmt.Errorf("most replicas %d: want ≥ 1", most)
	}
	var tried []reports.PlanProbe
	try := func(n int) (bool, error) {
		a, pass, err := eval(n)
		if err != nil {
			return false, fmt.Errorf("%d replicas: %w", n, err)
		}
		tried = append(tried, reports.PlanProbe{Replicas: n, Attainment: a, Pass: pass})
		return pass, nil
	}
	lo, hi := 0, 0 // largest failing size, smallest passing (0: none yet)
	for n := 1; hi == 0; n = min(2*n, most) {
		pass, err := try(n)
		if err != nil {
			return 0, tried, err
		}
		if pass {
			hi = n
		} else if lo = n; n == most {
			return 0, tried, nil
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		pass, err := try(mid)
		if err != nil {
			return 0, tried, err
		}
		if pass {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, tried, nil
}
