package reports

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tracebench/tracebench/metrics"
)

// summaryFields lists the summary CSV columns. Append new columns at the
// end; never rename or reorder (docs/reports.md documents them).
func summaryFields() []csvField {
	str := func(name string, get func(*metrics.Summary) string) csvField { return csvField{name, get} }
	f := func(name string, get func(*metrics.Summary) float64) csvField {
		return csvField{name, func(s *metrics.Summary) string { return num(get(s)) }}
	}
	out := []csvField{
		str("policy", func(s *metrics.Summary) string { return s.Header.Policy }),
		str("router", func(s *metrics.Summary) string { return s.Header.Router }),
		str("queue", func(s *metrics.Summary) string { return s.Header.Queue }),
		str("shard", func(s *metrics.Summary) string { return s.Header.Shard }),
		str("shards", func(s *metrics.Summary) string { return strconv.Itoa(s.Header.Shards) }),
		str("trace", func(s *metrics.Summary) string { return s.Header.Trace }),
		str("mode", func(s *metrics.Summary) string { return string(s.Header.Mode) }),
		str("backends", func(s *metrics.Summary) string { return strconv.Itoa(len(s.Header.Backends)) }),
		str("seed", func(s *metrics.Summary) string { return strconv.FormatUint(s.Header.Seed, 10) }),
		str("started", func(s *metrics.Summary) string { return s.Header.Started.UTC().Format(time.RFC3339) }),
		str("stop_reason", stopReason),
		f("window_s", func(s *metrics.Summary) float64 { return s.Window.Seconds }),
		f("warmup_s", func(s *metrics.Summary) float64 { return s.Options.Warmup.Seconds() }),
		str("slo_ttft_ms", func(s *metrics.Summary) string { return ms(s.Options.SLO.TTFT) }),
		str("slo_tpot_ms", func(s *metrics.Summary) string { return ms(s.Options.SLO.TPOT) }),
		str("slo_e2e_ms", func(s *metrics.Summary) string { return ms(s.Options.SLO.E2E) }),
		str("requests", func(s *metrics.Summary) string { return numI(s.Requests) }),
		str("ok", func(s *metrics.Summary) string { return numI(s.OK) }),
		str("errors", func(s *metrics.Summary) string { return numI(s.Failed()) }),
		f("error_rate", func(s *metrics.Summary) float64 { return s.ErrorRate }),
	}
	for _, c := range errorClasses {
		out = append(out, str("errors_"+strings.ReplaceAll(c, "-", "_"),
			func(s *metrics.Summary) string { return numI(s.Errors[c]) }))
	}
	out = append(out,
		f("req_per_s", func(s *metrics.Summary) float64 { return s.Throughput.Requests }),
		f("input_tok_per_s", func(s *metrics.Summary) float64 { return s.Throughput.InputTokens }),
		f("output_tok_per_s", func(s *metrics.Summary) float64 { return s.Throughput.OutputTokens }))
	out = append(out, distFields("ttft", func(s *metrics.Summary) metrics.Dist { return s.TTFT })...)
	out = append(out, distFields("server_ttft", func(s *metrics.Summary) metrics.Dist { return s.ServerTTFT })...)
	out = append(out, distFields("tbt", func(s *metrics.Summary) metrics.Dist { return s.TBT })...)
	out = append(out, distFields("tpot", func(s *metrics.Summary) metrics.Dist { return s.TPOT })...)
	out = append(out, distFields("e2e", func(s *metrics.Summary) metrics.Dist { return s.E2E })...)
	out = append(out, distFields("queue_wait", func(s *metrics.Summary) metrics.Dist { return s.QueueWait })...)
	out = append(out, distFields("schedule_lag", func(s *metrics.Summary) metrics.Dist { return s.ScheduleLag })...)
	out = append(out,
		f("tokens_per_chunk", func(s *metrics.Summary) float64 { return s.TokensPerChunk }),
		str("sla_met", func(s *metrics.Summary) string { return numI(s.SLA.Met) }),
		f("sla_attainment", func(s *metrics.Summary) float64 { return s.SLA.Attainment }),
		f("goodput_req_per_s", func(s *metrics.Summary) float64 { return s.SLA.Goodput }),
		f("hit_rate_server", func(s *metrics.Summary) float64 { return s.HitRate.Server }),
		f("hit_rate_scraped", func(s *metrics.Summary) float64 { return s.HitRate.Scraped }),
		f("hit_rate_predicted", func(s *metrics.Summary) float64 { return s.HitRate.Predicted }),
		str("users", func(s *metrics.Summary) string { return strconv.Itoa(s.Fairness.Users) }),
		f("jain", func(s *metrics.Summary) float64 { return s.Fairness.Jain }),
		f("service_diff_max", func(s *metrics.Summary) float64 { return s.Fairness.ServiceDiffMax }),
		f("service_diff_mean", func(s *metrics.Summary) float64 { return s.Fairness.ServiceDiffMean }),
		f("cv_requests", func(s *metrics.Summary) float64 { return s.Balance.CVRequests }),
		f("cv_tokens", func(s *metrics.Summary) float64 { return s.Balance.CVTokens }),
		f("requested_rate", func(s *metrics.Summary) float64 { return s.Rate.Requested }),
		f("achieved_rate", func(s *metrics.Summary) float64 { return s.Rate.Achieved }),
		f("mock_step_late_p99_ms", func(s *metrics.Summary) float64 { return s.MockStepLate.P99 }),
		str("warnings", func(s *metrics.Summary) string { return strconv.Itoa(len(s.Warnings)) }),
		f("mock_step_late_p50_ms", func(s *metrics.Summary) float64 { return s.MockStepLate.P50 }),
		f("mock_step_late_max_ms", func(s *metrics.Summary) float64 { return s.MockStepLate.Max }),
		str("mock_steps", func(s *metrics.Summary) string { return numCount(s.MockStepLate.Steps) }),
		f("host_steal_pct", func(s *metrics.Summary) float64 { return s.Host.StealPct }),
		f("host_busy_pct", func(s *metrics.Summary) float64 { return s.Host.BusyPct }),
		f("host_load1", func(s *metrics.Summary) float64 { return s.Host.Load1 }),
		f("host_cpus", func(s *metrics.Summary) float64 { return s.Host.CPUs }),
		f("burst_gap_share", func(s *metrics.Summary) float64 { return s.BurstGapShare }),
		str("mock_lateness_lifetime", lifetimeCell),
	)
	out = append(out, distFields("ttfot", func(s *metrics.Summary) metrics.Dist { return s.TTFOT })...)
	out = append(out,
		str("slo_ttfot_ms", func(s *metrics.Summary) string { return ms(s.Options.SLO.TTFOT) }),
		str("reasoning_requests", func(s *metrics.Summary) string { return numI(s.Reasoning.Requests) }),
		str("reasoning_tokens", func(s *metrics.Summary) string { return numI(s.Reasoning.Tokens) }),
		f("reasoning_mean_tokens", func(s *metrics.Summary) float64 { return s.Reasoning.MeanTokens }),
		f("reasoning_share", func(s *metrics.Summary) float64 { return s.Reasoning.Share }),
		str("reasoning_no_output", func(s *metrics.Summary) string { return numI(s.Reasoning.NoOutput) }),
	)
	out = append(out, sessionFields()...)
	return append(out,
		f("cost_fleet_per_hour", func(s *metrics.Summary) float64 { return s.Cost.FleetPerHour }),
		f("cost_per_m_output_tokens", func(s *metrics.Summary) float64 { return s.Cost.PerMOutputTokens }),
		f("cost_per_m_input_tokens", func(s *metrics.Summary) float64 { return s.Cost.PerMInputTokens }),
		f("cost_per_met_request", func(s *metrics.Summary) float64 { return s.Cost.PerMetRequest }))
}

// lifetimeCell is 1 when the mock step lateness covers the mock's
// lifetime, 0 when it covers this run, empty when not measured.
func lifetimeCell(s *metrics.Summary) string {
	switch {
	case math.IsNaN(s.MockStepLate.P99):
		return ""
	case s.MockStepLate.Lifetime:
		return "1"
	}
	return "0"
}

// numCount formats a count held as a float in full ("52000", never
// "5.2e+04"), empty when it is NaN.
func numCount(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func stopReason(s *metrics.Summary) string {
	if s.Stop == nil {
		return "killed"
	}
	return string(s.Stop.Reason)
}
