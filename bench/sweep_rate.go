package bench

import (
	"errors"
	"io"
)

// NativeRate measures the workload's own mean arrival rate over the
// window each run replays, (n − 1) / (last − first arrival) of its
// Requests at time-scale 1, and returns it (0 when fewer than two
// arrivals or no time between them) with the workload's identity.
func NativeRate(wf Workload) (float64, string, error) {
	wf.Rate, wf.TimeScale = 0, 1
	src, err := OpenSource(wf)
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
