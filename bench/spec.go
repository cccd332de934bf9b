package bench

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

// Workload chooses the Requests of a Run: a trace file or a generator,
// and how they arrive. Each field is the command-line flag of the same
// name (`tracebench replay --help`); DefaultWorkload gives the flags'
// defaults. The results header records it as JSON.
type Workload struct {
	// Trace is the trace file to replay ("" runs the Workload generator);
	// Format its format ("auto" detects it); BlockSize the tokens per block
	// id of block-id traces (0: the format's own); TimeUnit the unit of
	// numeric timestamps ("": the format's own); SkipInvalid skips and
	// counts malformed records instead of failing; Windows how a trace
	// whose time restarts is read (traces.WindowModes; "": one window,
	// a fall of time is an error).
	Trace       string
	Format      string
	BlockSize   int
	TimeUnit    string
	SkipInvalid bool
	Windows     string
	// ShareGPT sets how a ShareGPT file becomes Requests.
	ShareGPT ShareGPT
	// Workload names the generator used without a Trace (default
	// "mixed"); WorkloadArgs are its typed parameters (none: the
	// generator's defaults; see traces.WorkloadSpec), recorded in the
	// results header as the list of "name=value" texts in the order
	// given. The generator's requests parameter is how many Requests it
	// makes, MaxRequests where the Run stops (0: when the source ends);
	// `tracebench bench`, `sweep` and `plan` set requests to their
	// --max-requests when -p requests is not given.
	Workload     string
	WorkloadArgs traces.Params
	// Seed seeds every random choice: workload, arrivals, policies
	// (default 1).
	Seed uint64
	// TimeScale multiplies the trace's inter-arrival times (default 1);
	// Rate, in req/s, replaces them (0 keeps them) with Arrival
	// inter-arrivals ("poisson", "gamma" or "constant"), CV being the
	// gamma coefficient of variation (default 1).
	TimeScale float64
	Rate      float64
	Arrival   string
	CV        float64
	// MaxRequests stops after that many Requests (0: all); Duration at
	// that much replay time (0: all); Start skips that much of the trace
	// in its own time.
	MaxRequests int
	Duration    time.Duration
	Start       time.Duration
	// Shard replays only shard "i/n" of the users and sessions ("": all).
	Shard string
	// Sessions paces the turns of sessions (zero: closed-loop).
	Sessions Sessions
}

// Policy chooses a Run's queue, the router's and queue's parameters, an
// optional filter before the router and the capacity limits the queue
// holds Requests back by. Each field is the command-line flag of the same
// name; DefaultPolicy gives the flags' defaults.
type Policy struct {
	// Router is the router to run, --policy (see `tracebench policies`;
	// a CompareSpec or SweepSpec sets it per Run from its Routers), Queue
	// the client-side queue (default "fcfs"); RouterArgs and QueueArgs
	// their typed parameters, each of the kind the policy declares
	// (policies.ParamSpec; none: its defaults), recorded in the results
	// header as "name=value" texts in the order given.
	Router     string
	Queue      string
	RouterArgs policies.Args
	QueueArgs  policies.Args
	// Filter wraps the router ("": none), FilterArgs its parameters.
	Filter     string
	FilterArgs policies.Args
	// PolicyConfig is a YAML file of router and queue names and
	// parameters, under RouterArgs and QueueArgs (see LoadConfig).
	PolicyConfig string
	// Capacity is the per-backend in-flight request limit, TokenBudget
	// the per-backend in-flight token limit, MaxInflight the limit over
	// all backends (a closed loop); 0 is no limit.
	Capacity    int
	TokenBudget int
	MaxInflight int
	// file is the parsed PolicyConfig file (nil without one), set by
	// LoadConfig.
	file *policies.PolicyConfig
	// sloWeights are the per-user weights of the SLO file (Spec.Report),
	// which a queue with a weights parameter takes when none is given.
	sloWeights map[string]float64
}

// Client sets how Requests are sent over HTTP. Each field is the
// command-line flag of the same name; DefaultClient gives the flags'
// defaults.
type Client struct {
	// API is the endpoint, "completions", "chat" or "responses" (the
	// OpenAI Responses API); Model the model sent
	// ("": the first one the first backend's /v1/models lists); APIKey the
	// bearer token ("": $OPENAI_API_KEY), never written anywhere; Headers
	// extra "Name: value" headers, whose values are never written.
	API     string
	Model   string
	APIKey  string
	Headers []string
	// NoStream asks for non-streaming responses.
	NoStream bool
	// Scrape scrapes each backend's /metrics every ScrapeInt (default
	// 1 s) during the Run.
	Scrape    bool
	ScrapeInt time.Duration
	// Grace is how long in-flight Requests may finish after the Run's
	// context ends (default 10 s); Timeout the first-byte and idle-stream
	// timeout per Request (default 60 s).
	Grace   time.Duration
	Timeout time.Duration
	// Dialect is the servers' dialect: "auto" (default: detected from
	// /v1/models, the Server header or /metrics names), "vllm",
	// "sglang", "llamacpp" or "openai".
	Dialect string
	// ReasoningTags reads reasoning between <think> and </think> in the
	// generated content (reasoning models served without a reasoning
	// parser; default false).
	ReasoningTags bool
	// dialect and dialectWhy are the resolved dialect and why it was
	// chosen (set by ResolveDialect or NewClient).
	dialect    *dialect.Dialect
	dialectWhy string
	// salt is the prompt salt of a live bench's run (see
	// client.Options.Salt; "" none).
	salt string
}

// parseHeaders parses "Name: value" pairs.
func parseHeaders(hs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, h := range hs {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fieldf("Spec.Client.Headers", "Spec.Client.Headers %q: want 'Name: value'", h)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// apiKey returns the flag or $OPENAI_API_KEY.
func (c *Client) apiKey() string {
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
		return 0, 0, fieldf("Spec.Workload.Shard", "Spec.Workload.Shard %q: want i/n with 0 <= i < n", s)
	}
	return i, n, nil
}
