package flags

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

// BindWorkload binds the workload flags to w, --workload defaulting to
// defWorkload.
func BindWorkload(fs *pflag.FlagSet, w *bench.Workload, defWorkload string) {
	d := bench.DefaultWorkload()
	fs.StringVar(&w.Trace, "trace", "", "trace file to replay (JSONL/CSV/JSON)")
	fs.StringVar(&w.Format, "format", d.Format, "trace format: auto, "+strings.Join(traces.Formats, ", "))
	fs.IntVar(&w.BlockSize, "block-size", 0, BlockSizeHelp)
	fs.StringVar(&w.TimeUnit, "time-unit", "", TimeUnitHelp)
	fs.StringVar(&w.Windows, "windows", "", WindowsHelp)
	fs.BoolVar(&w.SkipInvalid, "skip-invalid", false, "skip malformed trace lines (counted) instead of failing")
	BindShareGPT(fs, &w.ShareGPT)
	fs.StringVar(&w.Workload, "workload", defWorkload, "workload generator ('tracebench trace gen --help')")
	BindWorkloadParams(fs, &w.WorkloadArgs, "generator parameter `k=v` (repeatable)")
	fs.Uint64Var(&w.Seed, "seed", d.Seed, "seed of every random choice (workload, arrivals, policies)")
	fs.Float64Var(&w.TimeScale, "time-scale", d.TimeScale, "multiply the trace's inter-arrival times by this (0.5 = twice as fast)")
	fs.Float64Var(&w.Rate, "rate", 0, "request rate in req/s replacing the trace's times (0 = keep them)")
	fs.StringVar(&w.Arrival, "arrival", d.Arrival, "inter-arrival process with --rate: poisson|gamma|constant")
	fs.Float64Var(&w.CV, "cv", d.CV, "coefficient of variation of gamma inter-arrivals (burstiness)")
	fs.IntVar(&w.MaxRequests, "max-requests", 0, "stop after this many requests (0 = all)")
	fs.DurationVar(&w.Duration, "duration", 0, "stop at this replay time, after --time-scale/--rate (0 = all)")
	fs.DurationVar(&w.Start, "start", 0, "skip this much of the trace (in the trace's own time) before replaying")
	fs.StringVar(&w.Shard, "shard", "", "replay only shard i/n of the users/sessions (e.g. 0/4)")
	BindSessions(fs, &w.Sessions)
}

// BindSessions binds the session pacing flags to s.
func BindSessions(fs *pflag.FlagSet, s *bench.Sessions) {
	fs.StringVar(&s.Pacing, "sessions", "", "session turns: closed (default: a think time after the answer) or open (at trace times; "+
		"the default of rate ladders)")
	fs.StringVar(&s.OnFailure, "on-turn-failure", "continue", "a failed turn: continue its session or end it")
	fs.Var((*countValue)(&s.Users), "users", "keep N sessions running, each user starting its next as one ends (0 = trace times)")
	fs.DurationVar(&s.Ramp, "ramp", 0, "with --users: start the users evenly over this time")
	fs.BoolVar(&s.MidStart, "mid-start", false, "with --users: first sessions start at a random turn (steady state)")
	fs.BoolVar(&s.NoFeedback, "no-feedback", false, "later turns keep the trace's answers, not the server's")
}

// BindPolicy binds the policy flags to p; withRouter adds --policy.
func BindPolicy(fs *pflag.FlagSet, p *bench.Policy, withRouter bool) {
	d := bench.DefaultPolicy()
	if withRouter {
		fs.StringVar(&p.Router, "policy", d.Router, "router (see 'tracebench policies')")
	}
	fs.StringVar(&p.Queue, "queue", d.Queue, "client-side queue (see 'tracebench policies')")
	fs.Var(&policyArgsValue{policies.KindRouter, &p.RouterArgs}, "router-param", "router parameter `k=v` (repeatable)")
	fs.Var(&policyArgsValue{policies.KindQueue, &p.QueueArgs}, "queue-param", "queue parameter `k=v` (repeatable)")
	fs.StringVar(&p.Filter, "filter", "", "filter applied before the router: "+strings.Join(policies.Names(policies.KindFilter), ", ")+" (none by default)")
	fs.Var(&policyArgsValue{policies.KindFilter, &p.FilterArgs}, "filter-param", "filter parameter `k=v` (repeatable)")
	fs.StringVar(&p.PolicyConfig, "policy-config", "", "YAML `file` of router and queue names and parameters (docs/policies.md)")
	fs.Var((*countValue)(&p.Capacity), "backend-capacity", "per-backend in-flight request limit for the queue (0 = none)")
	fs.Var((*countValue)(&p.TokenBudget), "backend-token-budget", "per-backend in-flight token budget for the queue (0 = none)")
	fs.Var((*countValue)(&p.MaxInflight), "max-inflight", "cap on in-flight requests, all backends (closed loop; 0 = open loop)")
}

// countValue is an int flag that must be 0 or more (a limit where 0 means
// none), so a negative value fails at parsing instead of lifting the limit.
type countValue int

func (c *countValue) String() string { return fmt.Sprint(int(*c)) }

func (c *countValue) Set(s string) error {
	var v int
	if _, err := fmt.Sscan(s, &v); err != nil || fmt.Sprint(v) != strings.TrimSpace(s) {
		return fmt.Errorf("%q is not a whole number", s)
	}
	if v < 0 {
		return fmt.Errorf("%d is negative (0 = no limit)", v)
	}
	*c = countValue(v)
	return nil
}

func (c *countValue) Type() string { return "int" }

// BindClient binds the client flags to c.
func BindClient(fs *pflag.FlagSet, c *bench.Client) {
	d := bench.DefaultClient()
	fs.StringVar(&c.API, "api", d.API, "endpoint: completions|chat|responses|native (/v1/responses; llama.cpp's /completion)")
	fs.BoolVar(&c.ReasoningTags, "reasoning-tags", false,
		"read the reasoning a model writes between think tags in its generated text (reasoning models served without a reasoning parser)")
	fs.StringVar(&c.Model, "model", "", "model name (default: the first one /v1/models lists)")
	fs.StringVar(&c.APIKey, "api-key", "", "bearer token (default $OPENAI_API_KEY); never written anywhere")
	fs.StringArrayVar(&c.Headers, "header", nil, "extra HTTP header 'Name: value' (repeatable); values never written, credential ones redacted from errors")
	fs.BoolVar(&c.NoStream, "no-stream", false, "request non-streaming responses")
	fs.BoolVar(&c.Scrape, "scrape", false, "scrape each backend's /metrics during the run")
	fs.DurationVar(&c.ScrapeInt, "scrape-interval", d.ScrapeInt, "scrape period with --scrape")
	fs.DurationVar(&c.Grace, "grace", d.Grace, "after Ctrl-C, how long in-flight requests may finish")
	fs.DurationVar(&c.Timeout, "timeout", d.Timeout, "first-byte and idle-stream timeout per request")
	fs.StringVar(&c.Dialect, "dialect", d.Dialect, "server dialect: auto (from its answers), vllm, sglang, llamacpp, openai")
}

// BindShareGPT binds the ShareGPT flags to s and marks them bound.
func BindShareGPT(fs *pflag.FlagSet, s *bench.ShareGPT) {
	d := bench.DefaultWorkload().ShareGPT
	s.Bound = true
	fs.StringVar(&s.Tokenizer, "sharegpt-tokenizer", d.Tokenizer,
		"tokenizer counting ShareGPT text in tokens: whitespace|character|tiktoken")
	fs.DurationVar(&s.Think, "sharegpt-think", d.Think,
		"time between the turns of one ShareGPT conversation")
	fs.DurationVar(&s.Gap, "sharegpt-gap", d.Gap,
		"time between the starts of successive ShareGPT conversations")
}

// WindowsHelp documents --windows.
const WindowsHelp = "a trace whose time restarts (windows timed from their own start, as RAGPulse's two weeks): " +
	"sequential replays the windows one after another, each offset by the previous one's last arrival (default: one window; a fall of time is an error)"

// TimeUnitHelp documents --time-unit.
const TimeUnitHelp = "unit of the trace's numeric timestamps: s|ms|us|ns (default: the format's own, ms for mooncake, s for vtc and burstgpt)"

// BlockSizeHelp documents --block-size.
const BlockSizeHelp = "tokens per block id in block-id traces (0 = the format's own: mooncake 512, bailian 16)"
