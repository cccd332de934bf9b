package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

// workloadFlags choose the Requests: a trace file or a generator, and
// how they arrive.
type workloadFlags struct {
	Trace        string
	Format       string
	BlockSize    int
	TimeUnit     string
	SkipInvalid  bool
	ShareGPT     shareGPTFlags
	Workload     string
	WorkloadArgs []string
	Seed         uint64
	TimeScale    float64
	Rate         float64
	Arrival      string
	CV           float64
	MaxRequests  int
	Duration     time.Duration
	Start        time.Duration
	Shard        string
}

func (w *workloadFlags) bind(fs *pflag.FlagSet, defWorkload string) {
	fs.StringVar(&w.Trace, "trace", "", "trace file to replay (JSONL/CSV/JSON)")
	fs.StringVar(&w.Format, "format", "auto", "trace format: auto|"+strings.Join(traces.Formats, "|"))
	fs.IntVar(&w.BlockSize, "block-size", 0, blockSizeHelp)
	fs.StringVar(&w.TimeUnit, "time-unit", "", timeUnitHelp)
	fs.BoolVar(&w.SkipInvalid, "skip-invalid", false, "skip malformed trace lines (counted) instead of failing")
	w.ShareGPT.bind(fs)
	fs.StringVar(&w.Workload, "workload", defWorkload, "workload generator when no --trace (see 'tracebench trace gen --help')")
	fs.StringArrayVarP(&w.WorkloadArgs, "workload-param", "p", nil, "generator parameter k=v (repeatable)")
	fs.Uint64Var(&w.Seed, "seed", 1, "seed of every random choice (workload, arrivals, policies)")
	fs.Float64Var(&w.TimeScale, "time-scale", 1, "multiply the trace's inter-arrival times by this (0.5 = twice as fast)")
	fs.Float64Var(&w.Rate, "rate", 0, "request rate in req/s replacing the trace's times (0 = keep them)")
	fs.StringVar(&w.Arrival, "arrival", "poisson", "inter-arrival process with --rate: poisson|gamma|constant")
	fs.Float64Var(&w.CV, "cv", 1, "coefficient of variation of gamma inter-arrivals (burstiness)")
	fs.IntVar(&w.MaxRequests, "max-requests", 0, "stop after this many requests (0 = all)")
	fs.DurationVar(&w.Duration, "duration", 0, "stop at this much replay time, after --time-scale/--rate (0 = all)")
	fs.DurationVar(&w.Start, "start", 0, "skip this much of the trace (in the trace's own time) before replaying")
	fs.StringVar(&w.Shard, "shard", "", "replay only shard i/n of the users/sessions (e.g. 0/4)")
}

// policyFlags choose the Router and Queue and their parameters.
type policyFlags struct {
	Router       string
	Queue        string
	RouterArgs   []string
	QueueArgs    []string
	Filter       string
	FilterArgs   []string
	PolicyConfig string
	Capacity     int
	TokenBudget  int
	MaxInflight  int
	// file is the parsed --policy-config file (nil without one), set by
	// loadConfig.
	file *policies.PolicyConfig
	// sloWeights are the per-user weights of the --slo-file, which a
	// queue with a weights parameter takes when none is given.
	sloWeights map[string]float64
}

func (p *policyFlags) bind(fs *pflag.FlagSet, withRouter bool) {
	if withRouter {
		fs.StringVar(&p.Router, "policy", "round-robin", "router: "+strings.Join(policies.Names("router"), ", "))
	}
	fs.StringVar(&p.Queue, "queue", "fcfs", "client-side queue: "+strings.Join(policies.Names("queue"), ", "))
	fs.StringArrayVar(&p.RouterArgs, "router-param", nil, "router parameter k=v (repeatable)")
	fs.StringArrayVar(&p.QueueArgs, "queue-param", nil, "queue parameter k=v (repeatable)")
	fs.StringVar(&p.Filter, "filter", "", "filter applied before the router: "+strings.Join(policies.Names("filter"), ", ")+" (none by default)")
	fs.StringArrayVar(&p.FilterArgs, "filter-param", nil, "filter parameter k=v (repeatable)")
	fs.StringVar(&p.PolicyConfig, "policy-config", "", "YAML file of router and queue names and parameters (see docs/policies.md)")
	fs.Var((*countValue)(&p.Capacity), "backend-capacity", "per-backend in-flight request limit for the queue (0 = none)")
	fs.Var((*countValue)(&p.TokenBudget), "backend-token-budget", "per-backend in-flight token budget for the queue (0 = none)")
	fs.Var((*countValue)(&p.MaxInflight), "max-inflight", "cap on in-flight requests over all backends (closed loop; 0 = open loop)")
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

// clientFlags configure how requests are sent.
type clientFlags struct {
	API       string
	Model     string
	APIKey    string
	Headers   []string
	NoStream  bool
	Scrape    bool
	ScrapeInt time.Duration
	Grace     time.Duration
	Timeout   time.Duration
	// Dialect is --dialect: auto, vllm, sglang, llamacpp or openai.
	Dialect string
	// dialect and dialectWhy are the resolved dialect and why it was
	// chosen (set by newClient).
	dialect    *dialect.Dialect
	dialectWhy string
}

func (c *clientFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&c.API, "api", "completions", "endpoint: completions|chat")
	fs.StringVar(&c.Model, "model", "", "model name (default: the first one /v1/models lists)")
	fs.StringVar(&c.APIKey, "api-key", "", "bearer token (default $OPENAI_API_KEY); never written anywhere")
	fs.StringArrayVar(&c.Headers, "header", nil, "extra HTTP header 'Name: value' (repeatable); values never written, credential ones redacted from errors")
	fs.BoolVar(&c.NoStream, "no-stream", false, "request non-streaming responses")
	fs.BoolVar(&c.Scrape, "scrape", false, "scrape each backend's /metrics during the run")
	fs.DurationVar(&c.ScrapeInt, "scrape-interval", time.Second, "scrape period with --scrape")
	fs.DurationVar(&c.Grace, "grace", 10*time.Second, "after Ctrl-C, how long in-flight requests may finish")
	fs.DurationVar(&c.Timeout, "timeout", 60*time.Second, "first-byte and idle-stream timeout per request")
	fs.StringVar(&c.Dialect, "dialect", dialect.Auto, "server dialect: auto|vllm|sglang|llamacpp|openai (auto: from /v1/models, the Server header or /metrics names)")
}

// parseKV parses k=v pairs of flag into Params.
func parseKV(flag string, pairs []string) (policies.Params, error) {
	p := policies.Params{}
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--%s %q: want key=value", flag, kv)
		}
		p[k] = v
	}
	return p, nil
}

// parseHeaders parses "Name: value" pairs.
func parseHeaders(hs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, h := range hs {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--header %q: want 'Name: value'", h)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// apiKey returns the flag or $OPENAI_API_KEY.
func (c *clientFlags) apiKey() string {
	if c.APIKey != "" {
		return c.APIKey
	}
	return os.Getenv("OPENAI_API_KEY")
}

// parseShard parses "i/n".
func parseShard(s string) (i, n int, err error) {
	if s == "" {
		return 0, 1, nil
	}
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usagef("--shard %q: want i/n with 0 <= i < n", s)
	}
	return i, n, nil
}
