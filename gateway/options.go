package gateway

import (
	"io"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// Defaults of Options.
const (
	// DefaultMaxBody is the largest request body accepted (16 MiB).
	DefaultMaxBody = 16 << 20
	// DefaultGrace is how long in-flight requests may finish after the
	// gateway is told to stop (10 s).
	DefaultGrace = 10 * time.Second
	// DefaultRetryAfter is the Retry-After of a 429 (1 s).
	DefaultRetryAfter = time.Second
)

// Options configure a Gateway.
type Options struct {
	// Backends are the base URLs, indexed in order (at least one).
	Backends []string
	// Client sends to the Backends (its API key and extra headers are
	// set on every upstream request).
	Client *client.Client
	// HTTP is the client of the gateway's own probes of the Backends
	// (/v1/models, dialect detection, /metrics scrapes); it should send
	// the same credentials as Client. nil: a plain client.
	HTTP *http.Client
	// Router, Queue, Capacity and MaxInflight are the policy and its
	// limits, as a replay takes them.
	Router      policies.Router
	Queue       policies.Queue
	Capacity    policies.Capacity
	MaxInflight int
	// PD disaggregates prefill and decode (nil: aggregated).
	PD *replay.PDOptions
	// KVEvents and KVListen wire a KV-event Router's streams, as in a
	// replay (replay.SubscribeKV).
	KVEvents []replay.KVEndpoint
	KVListen replay.KVListen
	// Discover re-resolves the fleet while the gateway runs (nil: fixed).
	Discover *replay.Discovery
	// ScrapeEvery scrapes each Backend's /metrics for the Router's view of
	// server load at this interval (0: off).
	ScrapeEvery time.Duration
	// Results receives every request's Result and the fleet and policy
	// Events (nil: none); the caller writes its stop line with the Stop
	// Serve returns.
	Results *results.Writer
	// Requests receives every accepted request as one native trace line
	// (traces' JSONL), in arrival order, so predict and calibrate can
	// replay what the gateway saw (nil: not recorded).
	Requests io.Writer
	// APIKey, when set, is required as "Authorization: Bearer KEY" on
	// every /v1 request (401 otherwise); it is never logged.
	APIKey string
	// MaxBody bounds a request body in bytes (0: DefaultMaxBody); a
	// larger one is answered 413.
	MaxBody int64
	// MaxQueue is the most requests held in the Queue before new ones
	// are answered 429 (0: no limit).
	MaxQueue int
	// RetryAfter is the Retry-After of a 429 (0: DefaultRetryAfter).
	RetryAfter time.Duration
	// Grace is how long in-flight requests may finish once Serve's
	// context ends (0: DefaultGrace); then they are cut, recorded as
	// canceled.
	Grace time.Duration
	// Registry receives the gateway's metrics (nil: a new one), served
	// on /metrics.
	Registry *prometheus.Registry
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = DefaultRetryAfter
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	return o
}
