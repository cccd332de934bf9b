package metrics

import (
	"time"

	"github.com/tracebench/tracebench/results"
)

// Summary is everything a report shows about one Run. Latencies are in
// milliseconds, rates per second, fractions in [0, 1]. A figure that
// could not be measured is NaN in Go and rendered as "n/a" (null in JSON).
type Summary struct {
	// label is the display name reports' labelRuns gave the Run among others of
	// the same policy ("" until then).
	label string
	// Header is the Run's header from its results file.
	Header results.Header `json:"header"`
	// PromptTokenRatio is Σ the servers' prompt tokens / Σ the trace's,
	// over successful requests with both (NaN when none): 1 when the
	// servers count prompts as the trace does.
	PromptTokenRatio float64 `json:"prompt_token_ratio"`
	// unstreamed counts successful multi-token requests that came in one
	// chunk (TPOT n/a).
	unstreamed int64
	// Stop is the stop line (nil when the Run was killed).
	Stop *results.Stop `json:"stop,omitempty"`
	// Options are the options the Summary was built with.
	Options Options `json:"options"`
	// Window is the measured window: from the warm-up cut to the last
	// completion.
	Window Window `json:"window"`

	// Requests counts Results in the window; OK the successful ones;
	// WarmupSkipped those left out by the warm-up cut.
	Requests      int64 `json:"requests"`
	OK            int64 `json:"ok"`
	WarmupSkipped int64 `json:"warmup_skipped"`
	// Errors counts failed Results by error class.
	Errors map[string]int64 `json:"errors"`
	// ErrorRate is failed / Requests.
	ErrorRate float64 `json:"error_rate"`

	// Throughput is measured over Window.
	Throughput Throughput `json:"throughput"`
	// Latency distributions over successful requests. TTFOT, the time to
	// first output token (after a reasoning model's reasoning), is over
	// the successful requests that received one.
	TTFT        Dist `json:"ttft"`
	TTFOT       Dist `json:"ttfot"`
	ServerTTFT  Dist `json:"server_ttft"`
	TBT         Dist `json:"tbt"`
	TPOT        Dist `json:"tpot"`
	E2E         Dist `json:"e2e"`
	QueueWait   Dist `json:"queue_wait"`
	ScheduleLag Dist `json:"schedule_lag"`
	// TokensPerChunk is output tokens / content chunks over all
	// successful requests (1 when every chunk carries one token).
	TokensPerChunk float64 `json:"tokens_per_chunk"`
	// BurstGapShare is the share (0 to 1) of TBT gaps shorter than 0.1 ms:
	// chunks of one stream that reached the client together, because the
	// client fell behind reading its streams or the server sent several
	// chunks at once. No decode step is that short, so a large share
	// means TBT percentiles describe the bursts, not the servers' steps.
	BurstGapShare float64 `json:"burst_gap_share"`

	// Reasoning holds the reasoning tokens of the successful requests and
	// why TTFOT is n/a when it is.
	Reasoning Reasoning `json:"reasoning"`

	// SLA holds attainment and goodput.
	SLA SLA `json:"sla"`
	// Cost is what the work cost at Options.Price (n/a without a price).
	Cost Cost `json:"cost"`
	// HitRate holds the prefix-cache hit rates.
	HitRate HitRate `json:"hit_rate"`
	// Fairness holds Jain's index and the VTC service difference.
	Fairness Fairness `json:"fairness"`
	// Sessions describes the Run's sessions (nil when it had none);
	// sessionRows lists them one by one (sessions.csv).
	Sessions    *SessionSummary `json:"sessions,omitempty"`
	sessionRows []SessionRow
	// Balance is the spread of load across Backends.
	Balance Balance `json:"load_balance"`
	// Rate compares the requested and achieved arrival rates (req/s; NaN
	// when the run did not record them).
	Rate RateCheck `json:"rate"`
	// MockStepLate is the mock servers' step lateness (NaN when not run
	// against the bundled mock).
	MockStepLate Lateness `json:"mock_step_late"`
	// Host is the machine's CPU time over the Run (NaN for --sim, off
	// Linux, and for results files from before it was recorded).
	Host HostCPU `json:"host_cpu"`

	// Backends and Users are the per-Backend and per-user rows; Users is
	// sorted by demand, largest first.
	Backends []BackendSummary `json:"backends"`
	Users    []UserSummary    `json:"users"`
	// KVEvents are the per-backend KV event stream figures of a router
	// that reads them (precise-prefix); empty otherwise.
	KVEvents []KVEventStats `json:"kv_events,omitempty"`
	// PD is the prefill/decode split of a disaggregated Run (nil
	// otherwise).
	PD *PDSummary `json:"pd,omitempty"`
	// KVNotes say, once per backend, why a KV-event router got no cache
	// view of it (undecodable batches, nothing published, no batch on
	// its topic, unreachable) and which topics went to no backend.
	KVNotes []string `json:"kv_notes,omitempty"`
	// Fleet lists the Backends that joined or left mid-run, in order.
	Fleet []FleetChange `json:"fleet,omitempty"`
	// Series are the time series behind the plots.
	Series Series `json:"series"`
	// LoRAAffinity says where a lora-affinity filter read the adapters
	// (nil without one).
	LoRAAffinity *LoRAView `json:"lora_affinity,omitempty"`
	// OverRange is how many successful requests had a latency (TTFT,
	// TBT, TPOT, E2E, queue wait or schedule lag) above the histograms'
	// 7-day ceiling; their values count at the ceiling, so percentiles
	// there are lower bounds. 0 for every real run so far.
	OverRange int64 `json:"over_range,omitempty"`
	// Warnings say where the measurement itself is doubtful, one line
	// each.
	Warnings []string `json:"warnings"`

	warns []Warning // Warnings, structured for grouping across runs
}

// Window is the measured part of a Run, as offsets from its start.
type Window struct {
	Start time.Duration `json:"start"`
	End   time.Duration `json:"end"`
	// Seconds is End − Start in seconds.
	Seconds float64 `json:"seconds"`
}

// Throughput is completed work per second of the measured window.
type Throughput struct {
	// Requests is successful requests per second.
	Requests float64 `json:"req_per_s"`
	// InputTokens and OutputTokens are prompt and completion tokens of
	// successful requests per second.
	InputTokens  float64 `json:"input_tok_per_s"`
	OutputTokens float64 `json:"output_tok_per_s"`
}

// SLA is how many requests met their SLO.
type SLA struct {
	// Met counts requests that met every bound that applies to them.
	Met int64 `json:"met"`
	// Attainment is Met / Requests (errors count as missed).
	Attainment float64 `json:"attainment"`
	// Goodput is Met per second of the measured window (DistServe, Zhong
	// et al., OSDI 2024).
	Goodput float64 `json:"goodput_req_per_s"`
}

// HitRate compares prefix-cache hit rates.
type HitRate struct {
	// Server is Σ cached_tokens / Σ prompt_tokens from usage, over the
	// responses that carried a cached count (NaN when none did).
	Server float64 `json:"server"`
	// Scraped is Δ prefix_cache_hits / Δ prefix_cache_queries from the
	// servers' /metrics (NaN when not scraped).
	Scraped float64 `json:"scraped"`
	// Predicted is Σ predicted hit tokens / Σ the trace's prompt tokens
	// (both on the trace's basis): what the Router's own prefix model
	// expected (NaN when the Router predicts nothing).
	Predicted float64 `json:"predicted"`
}

// Fairness measures how evenly users were served.
type Fairness struct {
	// Users is the number of users with demand in the window.
	Users int `json:"users"`
	// Jain is Jain's index over per-user service so far / max-min fair
	// share of it, taken at the end of every time bucket and averaged over
	// them, in [1/n, 1] (NaN with fewer than two users); see jainOverTime.
	Jain float64 `json:"jain"`
	// ServiceDiffMax and ServiceDiffMean are the VTC service difference
	// (weighted tokens per second) over FairnessWindow windows.
	ServiceDiffMax  float64 `json:"service_diff_max"`
	ServiceDiffMean float64 `json:"service_diff_mean"`
}

// Balance is the coefficient of variation (population stddev / mean) of
// the load per Backend; 0 is perfectly even.
type Balance struct {
	CVRequests float64 `json:"cv_requests"`
	CVTokens   float64 `json:"cv_tokens"`
}

// RateCheck compares the arrival rate asked for with the one achieved.
type RateCheck struct {
	Requested float64 `json:"requested"`
	Achieved  float64 `json:"achieved"`
}

// Lateness is how late the mock servers ran their steps: quantiles in
// milliseconds over every step of every replica, and the number of steps
// run during the Run (each NaN when the stop line does not carry it).
type Lateness struct {
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
	Steps float64 `json:"steps"`
	// Lifetime is true when the quantiles were scraped from a separately
	// started mock (`tracebench mock` with --scrape): they cover every
	// step since it started, not only this Run's, while Steps counts
	// this Run's. False for the in-process fleet, started for the Run.
	Lifetime bool `json:"lifetime,omitempty"`
}

// HostCPU is how the machine's CPU time went during a real-time Run, as
// percentages of all CPU time that passed (every CPU counted), from
// /proc/stat and /proc/loadavg on Linux; each NaN when not measured.
type HostCPU struct {
	// StealPct is time the hypervisor gave to other guests while this
	// machine had work (CPU steal): time the client and any in-process
	// mock could not run.
	StealPct float64 `json:"steal_pct"`
	// BusyPct is time spent running anything (this process and any
	// other load), steal and idle excluded.
	BusyPct float64 `json:"busy_pct"`
	// Load1 is the machine's 1-minute load average at the Run's end
	// (threads running or waiting to run) and CPUs the CPUs the client
	// could use: a load above results.HostLoadPerCPU a CPU means threads
	// waited for a CPU, where a busy share alone may be the servers' own
	// work (CPU engines on the same machine).
	Load1 float64 `json:"load1"`
	CPUs  float64 `json:"cpus"`
}

// BackendSummary is one Backend's row.
type BackendSummary struct {
	// Index is the Backend's index in the header; URL its address.
	Index int    `json:"index"`
	URL   string `json:"url"`
	// Requests and Errors count Results routed to it.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// InputTokens and OutputTokens are its prompt and completion tokens.
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// TTFTP50 and TTFTP99 are in milliseconds (about 1 % accuracy).
	TTFTP50 float64 `json:"ttft_p50_ms"`
	TTFTP99 float64 `json:"ttft_p99_ms"`
	// HitRate is its server hit rate from usage; ScrapedHitRate from its
	// /metrics counters (NaN when not scraped); PredictedHitRate the
	// Router's expectation (NaN when not predicted).
	HitRate          float64 `json:"hit_rate"`
	ScrapedHitRate   float64 `json:"scraped_hit_rate"`
	PredictedHitRate float64 `json:"predicted_hit_rate"`
	// KVUsageMax is the largest scraped KV-cache usage in [0, 1] (NaN
	// when not scraped).
	KVUsageMax float64 `json:"kv_usage_max"`
	// ScrapedOutputShare is Δ of the server's generated-tokens counter /
	// the output tokens the client received from it (NaN when not
	// scraped): well under 1 means more than one server answers at the
	// address.
	ScrapedOutputShare float64 `json:"scraped_output_share"`
}

// UserSummary is one user's row.
type UserSummary struct {
	// User is the user id ("" for requests without one).
	User string `json:"user"`
	// Requests, Errors and Met count the user's requests.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	Met      int64 `json:"met"`
	// Attainment is Met / Requests.
	Attainment float64 `json:"attainment"`
	// Demand is the weighted tokens the user asked for (intended input
	// and output lengths); Service the weighted tokens it received.
	Demand  float64 `json:"demand"`
	Service float64 `json:"service"`
	// DemandShare is the user's share of all demand, in [0, 1].
	DemandShare float64 `json:"demand_share"`
	// TTFTP50 and TTFTP99 are in milliseconds (about 1 % accuracy).
	TTFTP50 float64 `json:"ttft_p50_ms"`
	TTFTP99 float64 `json:"ttft_p99_ms"`
}

// Series are the time series behind the plots; each point's At is the
// start of its bucket in seconds.
type Series struct {
	// Throughput is output tokens per second of successful requests,
	// each request's tokens spread evenly from its first token to its
	// end; Completions is completed requests per second.
	Throughput  []Point `json:"output_tok_per_s"`
	Completions []Point `json:"req_per_s"`
	// InFlight is the mean number of requests sent and not yet done;
	// Waiting the mean number arrived and not yet sent.
	InFlight []Point `json:"in_flight"`
	Waiting  []Point `json:"waiting"`
	// UserService is cumulative service (weighted tokens) of the users
	// plotted (the largest by demand), keyed by user.
	UserService map[string][]Point `json:"user_service,omitempty"`
	// VTCCounter is the vtc or lcf Queue's mean counter (weighted tokens)
	// over time for the users plotted, keyed by user.
	VTCCounter map[string][]Point `json:"vtc_counter,omitempty"`
	// BinTarget is the multi-bin queue's mean b_target per bin over
	// time, keyed by bin ("bin0", ...).
	BinTarget map[string][]Point `json:"bin_target,omitempty"`
	// TTFTCDF is the cumulative distribution of TTFT.
	TTFTCDF []CDFPoint `json:"ttft_cdf"`
	// TBTCDF is the cumulative distribution of TBT over all gaps.
	TBTCDF []CDFPoint `json:"tbt_cdf"`
	// TTFTOverTime is the mean TTFT (ms) of the successful requests
	// whose intended arrival fell in each time bucket (empty buckets are
	// left out).
	TTFTOverTime []Point `json:"ttft_over_time"`
}
