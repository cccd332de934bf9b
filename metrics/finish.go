package metrics

import (
	"cmp"
	"math"
	"slices"

	"github.com/tracebench/tracebench/results"
)

// maxPlottedUsers is how many users (largest demand first) the cumulative
// service plot and Series.UserService carry.
const maxPlottedUsers = 8

// Finish freezes the aggregates into a Summary. stop is the results
// file's stop line, nil when the Run was killed. The Accumulator may not
// be used afterwards.
func (a *Accumulator) Finish(stop *results.Stop) *Summary {
	s := &Summary{Header: a.h, Stop: stop, Options: a.o, Requests: a.requests, OK: a.ok,
		WarmupSkipped: a.skipped, Errors: a.errors}
	s.Window = a.window(stop)
	secs := s.Window.Seconds
	if a.requests > 0 {
		s.ErrorRate = float64(a.requests-a.ok) / float64(a.requests)
	}
	s.Throughput = Throughput{Requests: per(float64(a.ok), secs),
		InputTokens: per(float64(a.promptTokens), secs), OutputTokens: per(float64(a.completionTokens), secs)}
	s.TTFT, s.ServerTTFT, s.TBT = distOf(a.ttft), distOf(a.serverTTFT), distOf(a.tbt)
	s.TPOT, s.E2E = distOf(a.tpot), distOf(a.e2e)
	s.QueueWait, s.ScheduleLag = distOf(a.queueWait), distOf(a.schedLag)
	s.TTFOT, s.Reasoning = a.reason.finish()
	s.OverRange = a.overRange
	s.TokensPerChunk = Ratio(float64(a.completionTokens), float64(a.chunks))
	s.BurstGapShare = Ratio(float64(a.burstGaps), float64(a.tbt.TotalCount()))
	s.SLA = SLA{Met: a.met, Attainment: Ratio(float64(a.met), float64(a.requests)), Goodput: per(float64(a.met), secs)}
	s.Cost = CostOf(s, a.o.Price)
	s.HitRate = a.hitRate(stop)
	s.Users = a.userRows()
	s.Fairness = a.fairness(s.Users, secs)
	s.Sessions = a.sessions.summary()
	s.Sessions.addStop(stop)
	s.sessionRows = a.sessions.rows()
	s.Backends = a.backendRows()
	s.Balance = balanceOf(s.Backends)
	s.Rate, s.MockStepLate = runChecks(stop, a.h.Mode)
	s.Host = hostCPU(stop)
	s.Series = a.series(s.Users)
	s.PromptTokenRatio, s.unstreamed = a.basis.ratio(), a.basis.unstreamed
	s.KVEvents = kvEventRows(stop, len(s.Backends))
	if stop != nil {
		s.KVNotes = stop.Notes
	}
	s.LoRAAffinity = loraView(stop)
	s.Fleet = a.fleet
	s.PD = a.pd.finish(secs)
	checkWarnings(s)
	return s
}

// window is [Warmup, last completion]; a Run with no Results falls back
// to its stop line's elapsed time.
func (a *Accumulator) window(stop *results.Stop) Window {
	end := a.lastDone
	if end == 0 && stop != nil {
		end = stop.Elapsed
	}
	end = max(end, a.o.Warmup)
	return Window{Start: a.o.Warmup, End: end, Seconds: (end - a.o.Warmup).Seconds()}
}

// per is n per second of secs (0 for an empty window).
func per(n, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return n / secs
}

// Ratio is a/b, NaN when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// hitRate computes the hit rates; the scraped one comes from the stop
// line's counter deltas when present, else from scrape Events.
func (a *Accumulator) hitRate(stop *results.Stop) HitRate {
	h := HitRate{Server: Ratio(float64(a.cachedTokens), float64(a.basis.knownPrompt)),
		Scraped: math.NaN(), Predicted: math.NaN()}
	if a.predicted {
		h.Predicted = Ratio(float64(a.predictedTokens), float64(a.basis.intended))
	}
	var hits, queries float64
	scraped := false
	for _, b := range a.backends {
		if b.scraped {
			scraped = true
			hits += b.lastHits - b.firstHits
			queries += b.lastQueries - b.firstQueries
		}
	}
	if scraped {
		h.Scraped = Ratio(hits, queries)
	}
	if stop != nil {
		q, okQ := stop.Extra[results.ExtraPrefixQueries]
		hh, okH := stop.Extra[results.ExtraPrefixHits]
		if okQ && okH {
			h.Scraped = Ratio(hh, q)
		}
	}
	return h
}

// userRows returns one row per user, largest demand first (ties by name).
func (a *Accumulator) userRows() []UserSummary {
	var total float64
	for _, u := range a.users {
		total += u.demand
	}
	rows := make([]UserSummary, 0, len(a.users))
	for id, u := range a.users {
		if u.requests == 0 { // known only from Queue events
			continue
		}
		rows = append(rows, UserSummary{User: id, Requests: u.requests, Errors: u.errors, Met: u.met,
			Attainment: Ratio(float64(u.met), float64(u.requests)), Demand: u.demand, Service: u.service,
			DemandShare: Ratio(u.demand, total), TTFTP50: nanIfEmpty(&u.ttft, 0.5), TTFTP99: nanIfEmpty(&u.ttft, 0.99)})
	}
	slices.SortFunc(rows, func(x, y UserSummary) int {
		return cmp.Or(cmp.Compare(y.Demand, x.Demand), cmp.Compare(x.User, y.User))
	})
	return rows
}

func nanIfEmpty(s *sketch, q float64) float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.quantile(q)
}

// fairness computes Jain's index over time (jainOverTime) and the VTC
// service difference.
func (a *Accumulator) fairness(users []UserSummary, secs float64) Fairness {
	n := 0
	for _, u := range users {
		if u.Demand > 0 {
			n++
		}
	}
	f := Fairness{Users: n, Jain: a.jainOverTime()}
	f.ServiceDiffMax, f.ServiceDiffMean = a.serviceDiffs(secs)
	return f
}
