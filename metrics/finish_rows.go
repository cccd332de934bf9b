package metrics

import (
	"math"

	"github.com/tracebench/tracebench/results"
)

// backendRows returns one row per Backend, in header order.
func (a *Accumulator) backendRows() []BackendSummary {
	rows := make([]BackendSummary, len(a.backends))
	for i, b := range a.backends {
		r := BackendSummary{Index: i, Requests: b.requests, Errors: b.errors, InputTokens: b.input,
			OutputTokens: b.output, TTFTP50: nanIfEmpty(&b.ttft, 0.5), TTFTP99: nanIfEmpty(&b.ttft, 0.99),
			HitRate: Ratio(float64(b.cached), float64(b.basis.knownPrompt)), ScrapedHitRate: math.NaN(),
			PredictedHitRate: math.NaN(), KVUsageMax: math.NaN(), ScrapedOutputShare: math.NaN()}
		if b.genSeen {
			r.ScrapedOutputShare = Ratio(b.lastGen-b.firstGen, float64(b.output))
		}
		r.URL = a.backendURL(i)
		if a.predicted {
			r.PredictedHitRate = Ratio(float64(b.predicted), float64(b.basis.intended))
		}
		if b.scraped {
			r.ScrapedHitRate = Ratio(b.lastHits-b.firstHits, b.lastQueries-b.firstQueries)
		}
		if b.kvSeen {
			r.KVUsageMax = b.kvMax
		}
		rows[i] = r
	}
	return rows
}

// balanceOf is the coefficient of variation of requests and of tokens
// (input + output) across Backends.
func balanceOf(rows []BackendSummary) Balance {
	req := make([]float64, len(rows))
	tok := make([]float64, len(rows))
	for i, r := range rows {
		req[i] = float64(r.Requests)
		tok[i] = float64(r.InputTokens + r.OutputTokens)
	}
	return Balance{CVRequests: CoefficientOfVariation(req), CVTokens: CoefficientOfVariation(tok)}
}

// runChecks reads the requested/achieved rate and the mock's step
// lateness from the stop line (NaN when absent). The lateness covers the
// mock's lifetime when it was scraped, unless the Run's mode is the
// in-process fleet ("mock"), whose own figures replace the scraped ones.
func runChecks(stop *results.Stop, mode results.Mode) (RateCheck, Lateness) {
	get := func(k string, scale float64) float64 {
		if stop == nil {
			return math.NaN()
		}
		v, ok := stop.Extra[k]
		if !ok {
			return math.NaN()
		}
		return v * scale
	}
	return RateCheck{Requested: get(results.ExtraRequestedRate, 1), Achieved: get(results.ExtraAchievedRate, 1)},
		Lateness{P50: get(results.ExtraMockLateP50, 1e-3), P99: get(results.ExtraMockLateP99, 1e-3), Max: get(results.ExtraMockLateMax, 1e-3),
			Steps: get(results.ExtraMockSteps, 1), Lifetime: get(results.ExtraMockLateScraped, 1) > 0 && mode != results.ModeMock}
}

// hostCPU reads the host's CPU steal and busy shares, load average and
// CPUs from the stop line (NaN when absent).
func hostCPU(stop *results.Stop) HostCPU {
	return HostCPU{StealPct: stop.Figure(results.ExtraHostStealPct), BusyPct: stop.Figure(results.ExtraHostBusyPct),
		Load1: stop.Figure(results.ExtraHostLoad1), CPUs: stop.Figure(results.ExtraHostCPUs)}
}

// series collects the plotted time series.
func (a *Accumulator) series(users []UserSummary) Series {
	// Every run-wide series spans the whole Run, so a line that is 0 at
	// the end (nobody waiting after the last arrival) is drawn to the end.
	for _, x := range []*series{a.throughput, a.completions, a.inFlight, a.waiting} {
		x.cover(a.lastDone)
	}
	s := Series{Throughput: a.throughput.rates(), Completions: a.completions.rates(),
		InFlight: a.inFlight.rates(), Waiting: a.waiting.rates(), TTFTCDF: cdfOf(a.ttft, 100),
		TBTCDF: cdfOf(a.tbt, 100), TTFTOverTime: a.ttftAt.means()}
	if len(a.users) > 1 {
		s.UserService = map[string][]Point{}
		for _, u := range users[:min(len(users), maxPlottedUsers)] {
			s.UserService[u.User] = a.users[u.User].svc.cumulative()
			if c := a.users[u.User].vtc; c != nil {
				if s.VTCCounter == nil {
					s.VTCCounter = map[string][]Point{}
				}
				s.VTCCounter[u.User] = c.means()
			}
		}
	}
	if len(a.bins) > 0 {
		s.BinTarget = map[string][]Point{}
		for bin, ser := range a.bins {
			s.BinTarget[bin] = ser.means()
		}
	}
	return s
}
