package reports

import (
	"io"
	"strconv"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/verdict"
)

// sweepField is one column of sweep.csv.
type sweepField struct {
	name  string
	value func(s *verdict.Sweep, p *verdict.SweepPolicy, n int, st *verdict.SweepStep) string
}

// sumNum formats a figure of the step's Summary, empty without one.
func sumNum(get func(*metrics.Summary) float64) func(*verdict.Sweep, *verdict.SweepPolicy, int, *verdict.SweepStep) string {
	return func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		if st.Summary == nil {
			return ""
		}
		return num(get(st.Summary))
	}
}

// sumDist formats a percentile of a distribution of the step's Summary,
// empty when it has no values.
func sumDist(get func(*metrics.Summary) metrics.Dist, pick func(metrics.Dist) float64) func(*verdict.Sweep, *verdict.SweepPolicy, int, *verdict.SweepStep) string {
	return func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		if st.Summary == nil || get(st.Summary).Count == 0 {
			return ""
		}
		return num(pick(get(st.Summary)))
	}
}

func ttftOf(s *metrics.Summary) metrics.Dist { return s.TTFT }
func tpotOf(s *metrics.Summary) metrics.Dist { return s.TPOT }
func p50(d metrics.Dist) float64             { return d.P50 }
func p99(d metrics.Dist) float64             { return d.P99 }

// sweepFields are the columns of sweep.csv, in order.
var sweepFields = []sweepField{
	{"policy", func(_ *verdict.Sweep, p *verdict.SweepPolicy, _ int, _ *verdict.SweepStep) string { return p.Policy }},
	{"run", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, n int, _ *verdict.SweepStep) string {
		return strconv.Itoa(n)
	}},
	{"offered_req_per_s", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		return num(st.Rate)
	}},
	{"time_scale_factor", func(s *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		if s.Vary != verdict.VaryTimeScale {
			return ""
		}
		return num(s.Factor(st.Rate))
	}},
	{"requests", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		return numI(st.Misses.Requests)
	}},
	{"attainment", sumNum(func(s *metrics.Summary) float64 { return s.SLA.Attainment })},
	{"pass", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		return strconv.FormatBool(st.Pass)
	}},
	{"goodput_req_per_s", sumNum(func(s *metrics.Summary) float64 { return s.SLA.Goodput })},
	{"throughput_req_per_s", sumNum(func(s *metrics.Summary) float64 { return s.Throughput.Requests })},
	{"error_rate", sumNum(func(s *metrics.Summary) float64 { return s.ErrorRate })},
	{"ttft_p50_ms", sumDist(ttftOf, p50)},
	{"ttft_p99_ms", sumDist(ttftOf, p99)},
	{"tpot_p50_ms", sumDist(tpotOf, p50)},
	{"tpot_p99_ms", sumDist(tpotOf, p99)},
	{"errors", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		return numI(st.Misses.Errors)
	}},
	{"missed_ttft", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		return numI(st.Misses.TTFT)
	}},
	{"missed_tpot", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		return numI(st.Misses.TPOT)
	}},
	{"missed_e2e", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		return numI(st.Misses.E2E)
	}},
	{"policy_sustained_req_per_s", func(_ *verdict.Sweep, p *verdict.SweepPolicy, _ int, _ *verdict.SweepStep) string {
		return num(p.Sustained)
	}},
	{"results_file", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string { return st.Results }},
	{"missed_ttfot", func(_ *verdict.Sweep, _ *verdict.SweepPolicy, _ int, st *verdict.SweepStep) string {
		return numI(st.Misses.TTFOT)
	}},
}

// SweepColumns returns the names of sweep.csv's columns, in order.
func SweepColumns() []string {
	out := make([]string, len(sweepFields))
	for i, f := range sweepFields {
		out[i] = f.name
	}
	return out
}

// WriteSweepCSV writes one row per run of the sweep, policies in the
// order run and each policy's runs in the order made. Rates are in req/s,
// latencies in ms, fractions in [0, 1]; a figure that could not be
// measured is empty.
func WriteSweepCSV(w io.Writer, s *verdict.Sweep) error {
	return writeCSV(w, "sweep csv", SweepColumns(), func(write func([]string)) {
		for i := range s.Policies {
			p := &s.Policies[i]
			for j := range p.Steps {
				row := make([]string, len(sweepFields))
				for k, f := range sweepFields {
					row[k] = f.value(s, p, j+1, &p.Steps[j])
				}
				write(row)
			}
		}
	})
}
