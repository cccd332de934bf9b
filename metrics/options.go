package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// SLO is a service-level objective for one request. A zero bound is not
// checked. TTFT, TTFOT and E2E count from the Request's intended arrival;
// TPOT is (done − first token) / (output tokens − 1).
type SLO struct {
	// TTFT bounds the time to first token (0: unchecked).
	TTFT time.Duration `json:"ttft" yaml:"ttft"`
	// TTFOT bounds the time to first output token, the first token
	// outside a reasoning model's reasoning (0: unchecked). A request
	// whose stream never left its reasoning misses it.
	TTFOT time.Duration `json:"ttfot,omitempty" yaml:"ttfot"`
	// TPOT bounds the time per output token (0: unchecked).
	TPOT time.Duration `json:"tpot" yaml:"tpot"`
	// E2E bounds the end-to-end latency (0: unchecked).
	E2E time.Duration `json:"e2e" yaml:"e2e"`
	// Weight is a per-user override's fair-share weight for the VTC
	// queues (0: not given, which they take as 1); the run-wide SLO has
	// none. It bounds no latency.
	Weight float64 `json:"weight,omitempty" yaml:"weight"`
	// PerUser overrides bounds for named users; a zero field of an
	// override inherits the run-wide bound.
	PerUser map[string]SLO `json:"per_user,omitempty" yaml:"-"`
}

// Weights returns the per-user weights an SLO file gave, nil when none.
func (s SLO) Weights() map[string]float64 {
	var out map[string]float64
	for u, o := range s.PerUser {
		if o.Weight > 0 {
			if out == nil {
				out = map[string]float64{}
			}
			out[u] = o.Weight
		}
	}
	return out
}

// For returns the bounds that apply to user: the run-wide bounds with the
// user's non-zero overrides applied.
func (s SLO) For(user string) SLO {
	out := SLO{TTFT: s.TTFT, TTFOT: s.TTFOT, TPOT: s.TPOT, E2E: s.E2E}
	o, ok := s.PerUser[user]
	if !ok {
		return out
	}
	if o.TTFT > 0 {
		out.TTFT = o.TTFT
	}
	if o.TTFOT > 0 {
		out.TTFOT = o.TTFOT
	}
	if o.TPOT > 0 {
		out.TPOT = o.TPOT
	}
	if o.E2E > 0 {
		out.E2E = o.E2E
	}
	return out
}

// ServiceWeights weigh tokens into a user's service: w_in per input token,
// w_out per output token. VTC (Sheng et al., OSDI 2024) uses 1 and 2.
type ServiceWeights struct {
	// In weighs input (prompt) tokens; default 1.
	In float64 `json:"w_in"`
	// Out weighs output (completion) tokens; default 2.
	Out float64 `json:"w_out"`
}

// Service is In·input + Out·output.
func (w ServiceWeights) Service(input, output int) float64 {
	return w.In*float64(input) + w.Out*float64(output)
}

// Options control what a Summary measures.
type Options struct {
	// SLO decides whether a request met its SLA. Default: none checked
	// (every successful request meets it); the CLI sets 2 s TTFT and
	// 100 ms TPOT.
	SLO SLO `json:"slo"`
	// Warmup leaves out requests whose intended arrival is earlier than
	// this offset from the start of the Run (default 0).
	Warmup time.Duration `json:"warmup"`
	// ServiceWeights weigh tokens into service (default w_in 1, w_out 2).
	ServiceWeights ServiceWeights `json:"service_weights"`
	// FairnessWindow is the window of the VTC service difference
	// (default 60 s, as in the VTC artifact's analysis scripts).
	FairnessWindow time.Duration `json:"fairness_window"`
	// Price is the backends' price in $/hour, behind Summary.Cost
	// (default: none, cost n/a).
	Price Price `json:"price,omitzero"`
	// Buckets is the most time buckets a time series keeps before halving
	// its resolution (default 240).
	Buckets int `json:"-"`
}

// DefaultOptions returns Options with every default set and no SLO bound.
func DefaultOptions() Options {
	return Options{
		ServiceWeights: ServiceWeights{In: 1, Out: 2},
		FairnessWindow: 60 * time.Second,
		Buckets:        240,
	}
}

// withDefaults fills zero fields with their defaults.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.ServiceWeights == (ServiceWeights{}) {
		o.ServiceWeights = d.ServiceWeights
	}
	if o.FairnessWindow <= 0 {
		o.FairnessWindow = d.FairnessWindow
	}
	if o.Buckets <= 1 {
		o.Buckets = d.Buckets
	}
	return o
}

// sloFileEntry is one user's bounds in an SLO file, as duration strings.
type sloFileEntry struct {
	TTFT   string   `yaml:"ttft"`
	TTFOT  string   `yaml:"ttfot"`
	TPOT   string   `yaml:"tpot"`
	E2E    string   `yaml:"e2e"`
	Weight *float64 `yaml:"weight"`
}

// LoadSLOFile reads per-user SLO overrides from a YAML file mapping user
// names to bounds given as Go durations, for example:
//
//	users:
//	  alice: {ttft: 500ms, tpot: 50ms, weight: 2}
//	  bob:   {e2e: 30s}
//	  carol: {ttfot: 5s}
//
// A bound left out inherits the run-wide flag. weight (> 0) is the user's
// fair-share weight, which the VTC queues take when their weights
// parameter is not given (see Weights).
func LoadSLOFile(path string) (map[string]SLO, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read SLO file: %w", err)
	}
	return ParseSLOFile(path, b)
}

// ParseSLOFile parses the contents of an SLO file (see LoadSLOFile); name
// is used in errors. Unknown keys are errors, so a misspelt bound is not
// silently ignored.
func ParseSLOFile(name string, b []byte) (map[string]SLO, error) {
	var doc struct {
		Users map[string]sloFileEntry `yaml:"users"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("SLO file %s: %w", name, err)
	}
	out := make(map[string]SLO, len(doc.Users))
	for user, e := range doc.Users {
		s, err := e.parse()
		if err != nil {
			return nil, fmt.Errorf("SLO file %s user %q: %w", name, user, err)
		}
		out[user] = s
	}
	return out, nil
}

func (e sloFileEntry) parse() (SLO, error) {
	var s SLO
	if e.Weight != nil {
		if !(*e.Weight > 0) || math.IsInf(*e.Weight, 0) {
			return s, fmt.Errorf("field weight: %g: want a positive number", *e.Weight)
		}
		s.Weight = *e.Weight
	}
	for _, f := range []struct {
		name string
		text string
		dst  *time.Duration
	}{{"ttft", e.TTFT, &s.TTFT}, {"ttfot", e.TTFOT, &s.TTFOT}, {"tpot", e.TPOT, &s.TPOT}, {"e2e", e.E2E, &s.E2E}} {
		if f.text == "" {
			continue
		}
		d, err := time.ParseDuration(f.text)
		if err != nil {
			return s, fmt.Errorf("field %s: %w", f.name, err)
		}
		if d < 0 {
			return s, fmt.Errorf("field %s: negative duration %s", f.name, f.text)
		}
		*f.dst = d
	}
	return s, nil
}
