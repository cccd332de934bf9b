package bench

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/verdict"
)

// stage2 runs the confirmed policies on every seed at once, each Run on
// a fresh mock fleet whose model time is stretched by the time scale, at
// the rate where the leaders part; it sets d's Confirm, ConfirmRate,
// TimeScale and Distorted and returns the first seed's Summaries.
// Distorted Runs are kept and named, not run again: the verdict is stage
// 1's, and a busy machine only weakens its confirmation.
func (dc *decider) stage2(ctx context.Context, d *verdict.Decision) ([]*metrics.Summary, error) {
	names, rate := dc.confirmed(d.CapacityVerdict)
	d.ConfirmRate, d.TimeScale = rate, dc.timeScale(d.Capacity, d.CapacityVerdict.Pick, rate)
	start := time.Now()
	if dc.s.users() {
		fmt.Fprintf(dc.errOut, "bench: stage 2, %d policies × %d seeds at once on real-time mock fleets with %.0f users "+
			"(model and think time stretched %.3g×)\n", len(names), dc.s.ConfirmSeeds, rate, d.TimeScale)
	} else {
		fmt.Fprintf(dc.errOut, "bench: stage 2, %d policies × %d seeds at once on real-time mock fleets at %.3g req/s "+
			"(model time stretched %.3g×: %.3g req/s of wall time)\n", len(names), dc.s.ConfirmSeeds, rate, d.TimeScale, rate/d.TimeScale)
	}
	sums, err := dc.confirmAll(ctx, names, rate, d.TimeScale, start)
	d.Stage2 = time.Since(start)
	fmt.Fprintf(dc.errOut, "bench: stage 2 done in %.1f s\n", d.Stage2.Seconds())
	if err != nil {
		return firstSeed(sums), err
	}
	runs := map[string][]*metrics.Summary{}
	distortion := dc.s.Distortion
	if distortion == nil {
		distortion = metrics.Distortion
	}
	policies := make([]string, len(names))
	for i, n := range names {
		policies[i] = PolicyName(n, dc.s.Base.Policy.Queue)
	}
	for k, seed := range sums {
		for i, s := range seed {
			runs[policies[i]] = append(runs[policies[i]], s)
			if why := distortion(s); why != "" {
				d.Distorted = append(d.Distorted, fmt.Sprintf("%s (seed %d): %s", policies[i], k, why))
			}
		}
	}
	d.Confirm = verdict.DecideVerdict(policies, runs)
	if dc.s.Baseline != "" {
		d.Confirm.CompareBaselineRuns(PolicyName(dc.s.Baseline, dc.s.Base.Policy.Queue), runs)
	}
	return sums[0], nil
}

// timeScale is how much stage 2 stretches model time: ConfirmWall over
// the Run's expected length in model time, its ConfirmRequests at rate plus the
// E2E p90 of pick's stage-1 run nearest rate (the last requests' time to
// finish), at least minConfirmScale.
func (dc *decider) timeScale(sw *verdict.Sweep, pick string, rate float64) float64 {
	tail, window := 0.0, 0.0
	best := math.Inf(1)
	for _, p := range sw.Policies {
		if p.Policy != pick {
			continue
		}
		for _, st := range p.Steps {
			if gap := math.Abs(math.Log(st.Rate / rate)); gap < best && st.Summary.E2E.Count > 0 {
				best, tail = gap, st.Summary.E2E.P90/1000
				window = st.Summary.Window.Seconds * float64(dc.s.ConfirmRequests) / float64(st.Summary.Requests)
			}
		}
	}
	model := float64(dc.s.ConfirmRequests)/rate + tail
	if dc.s.users() {
		// Closed-loop users set their own rate: the stage-1 run's length,
		// scaled to stage 2's requests.
		model = window
	}
	return max(minConfirmScale, math.Round(dc.s.ConfirmWall.Seconds()/model))
}

// minConfirmScale is the least stage 2 stretches model time: at 3× the
// mock's step lateness p99 on 2 idle cores (5.7–6.2 ms with nine fleets)
// passed the distortion guard's 25 % of the median TBT (22 ms) in 4 of 9
// runs; stretched 4×, the TBT grows with the scale and the lateness does
// not.
const minConfirmScale = 4

// confirmAll runs every name on every seed at once and returns the
// Summaries by seed, then by name (nil where a Run produced none).
func (dc *decider) confirmAll(ctx context.Context, names []string, rate, scale float64, start time.Time) ([][]*metrics.Summary, error) {
	if err := Preflight(dc.s.Base.Workload, dc.s.Base.Policy, names); err != nil {
		return nil, err
	}
	sums := make([][]*metrics.Summary, dc.s.ConfirmSeeds)
	errs := make([]error, dc.s.ConfirmSeeds*len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for k := range sums {
		sums[k] = make([]*metrics.Summary, len(names))
		dir := filepath.Join(dc.s.Out, "confirm", "seed-"+strconv.Itoa(k))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return sums, fmt.Errorf("DecideSpec.Out %s: %w", dc.s.Out, err)
		}
		for i, name := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := dc.confirmOne(ctx, name, k, dir, rate, scale)
				mu.Lock()
				defer mu.Unlock()
				sums[k][i], errs[k*len(names)+i] = s, err
				if err == nil {
					fmt.Fprintf(dc.errOut, "bench: %s seed %d finished (%.0f s)\n", name, k, time.Since(start).Seconds())
				}
			}()
		}
	}
	wg.Wait()
	return sums, FirstError(errs)
}

// confirmOne runs name on seed k on its own mock fleet, the SLO stretched
// with the model's time.
func (dc *decider) confirmOne(ctx context.Context, name string, k int, dir string, rate, scale float64) (*metrics.Summary, error) {
	rs := dc.s.Base
	rs.Policy.Router, rs.Quiet = name, true
	rs.Workload.Seed += uint64(k)
	rs.Workload.Rate, rs.Workload.TimeScale = rate/scale, 1
	// A rate is offered open-loop: session turns at their trace times.
	rs.Workload.Sessions.Pacing = cmp.Or(rs.Workload.Sessions.Pacing, string(replay.SessionsOpen))
	if dc.s.users() {
		// N users, their think times stretched with model time.
		rs.Workload.Rate, rs.Workload.TimeScale = 0, scale
		rs.Workload.Sessions.Pacing, rs.Workload.Sessions.Users = string(replay.SessionsClosed), int(rate)
	}
	rs.Workload.MaxRequests = dc.s.ConfirmRequests
	// Sessions' think times and queueing can make a run outlast its
	// requests over the rate: dispatch stops at ConfirmWall, the same cut
	// for every policy of the seed.
	rs.Workload.Duration = dc.s.ConfirmWall
	rs.Report.SLO = stretchSLO(rs.Report.SLO, scale)
	rs.Results = ResultsPath(dir, PolicyName(name, rs.Policy.Queue))
	f := dc.s.Mock
	f.Server.TimeScale = scale
	f.Server.Engine.Seed += int64(k)
	stop, err := f.Start(ctx, &rs)
	if err != nil {
		return nil, err
	}
	defer stop()
	// An overloaded fleet drains its queue long after dispatch stops:
	// every Run ends at the same deadline, and what is still in flight
	// then is cut after a short grace and counts as missing the SLO.
	rs.Client.Grace = confirmGrace
	cctx, cancel := context.WithTimeout(ctx, dc.s.ConfirmWall+confirmDrain)
	defer cancel()
	sum, err := Run(cctx, rs)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil && sum != nil {
		err = nil
	}
	return sum, err
}

// confirmDrain is how long a stage-2 Run may go on after ConfirmWall,
// dispatch having stopped there, for its last requests to finish;
// confirmGrace how long requests still in flight at that deadline get.
const (
	confirmDrain = 5 * time.Second
	confirmGrace = time.Second
)

// stretchSLO multiplies every bound of slo by scale.
func stretchSLO(slo metrics.SLO, scale float64) metrics.SLO {
	st := func(d time.Duration) time.Duration { return time.Duration(float64(d) * scale) }
	slo.TTFT, slo.TTFOT, slo.TPOT, slo.E2E = st(slo.TTFT), st(slo.TTFOT), st(slo.TPOT), st(slo.E2E)
	if len(slo.PerUser) > 0 {
		per := make(map[string]metrics.SLO, len(slo.PerUser))
		for u, b := range slo.PerUser {
			per[u] = stretchSLO(b, scale)
		}
		slo.PerUser = per
	}
	return slo
}

// firstSeed is the first seed's Summaries that exist.
func firstSeed(sums [][]*metrics.Summary) []*metrics.Summary {
	if len(sums) == 0 {
		return nil
	}
	var out []*metrics.Summary
	for _, s := range sums[0] {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}
