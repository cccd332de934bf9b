package results

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tracebench/tracebench/dialect"
)

// HeaderFormat is the layout of the run header this tracebench writes
// (Header.Format) and reads. A header without the field (0) was written
// before it existed and has the same layout; any other value is refused
// with an error naming the file and the field.
const HeaderFormat = 1

// RunConfig is the run configuration a results header records as its
// "config" object, credentials removed. Every field is optional: a file
// written with the replay package alone has none.
type RunConfig struct {
	// Workload and Policy are the Run's bench.Workload and bench.Policy as
	// JSON (this package does not know their types); read them with
	// ReadHeader's parts.
	Workload json.RawMessage `json:"workload,omitempty"`
	Policy   json.RawMessage `json:"policy,omitempty"`
	// PD is the Run's bench.PD, its prefill/decode disaggregation, as
	// JSON (absent when aggregated).
	PD json.RawMessage `json:"pd,omitempty"`
	// API is the endpoint ("completions" or "chat"); Model the model sent.
	API   string `json:"api"`
	Model string `json:"model"`
	// Stream is false when responses were asked for without streaming
	// (nil: not recorded).
	Stream *bool `json:"stream,omitempty"`
	// Scrape is whether /metrics was scraped, ScrapeInterval how often
	// (a Go duration, "1s").
	Scrape         bool   `json:"scrape,omitempty"`
	ScrapeInterval string `json:"scrape_interval,omitempty"`
	// Timeout is the per-request first-byte and idle timeout, Grace the
	// time in-flight requests had to finish (Go durations).
	Timeout string `json:"timeout,omitempty"`
	Grace   string `json:"grace,omitempty"`
	// HeaderNames are the names of the extra HTTP headers sent, sorted;
	// their values are never written.
	HeaderNames []string `json:"header_names,omitempty"`
	// Engine is the mock or simulated engines' configuration, a
	// mockserver/engine.Config as JSON (absent against live targets).
	Engine json.RawMessage `json:"engine,omitempty"`
	// Dialect is the servers' dialect and DialectReason why it was chosen
	// ("" for simulated engines, which speak none).
	Dialect       string `json:"dialect,omitempty"`
	DialectReason string `json:"dialect_reason,omitempty"`
	// Server is what the first live target said about itself (nil when
	// it said nothing or the Run had no live target).
	Server *dialect.ServerInfo `json:"server,omitempty"`
	// BenchCaches is a live bench's cache state before the policy ran,
	// "flushed: <how>", "salted: <how>" or "persisted: <why>"; BenchOrder
	// the policy's position, "2 of 3"; BenchProbeRPS the speed probe's
	// rate before the Run over every target, in req/s; BenchSalt the
	// Run's prompt salt ("" and 0 outside a live bench, or unsalted).
	BenchCaches   string  `json:"bench_caches,omitempty"`
	BenchOrder    string  `json:"bench_order,omitempty"`
	BenchProbeRPS float64 `json:"bench_probe_rps,omitempty"`
	BenchSalt     string  `json:"bench_salt,omitempty"`
}

// HeaderPart asks ReadHeader to decode one raw part of the header's
// config ("workload" or "policy") into Into, a pointer.
type HeaderPart struct {
	// Name is the config key: "workload" or "policy".
	Name string
	// Into receives the decoded part.
	Into any
}

// ReadHeader reads the run header of the results file at path and
// decodes the config parts asked for. Every error is one line naming the
// file, line 1 and the header field at fault: a header of another
// format, a field of the wrong type, a part missing (a file written by a
// tracebench that did not record it).
func ReadHeader(path string, parts ...HeaderPart) (Header, error) {
	rd, c, err := Open(path)
	if err != nil {
		return Header{}, err
	}
	defer c.Close()
	h := rd.Header
	for _, p := range parts {
		if err := h.Config.Decode(p); err != nil {
			return h, fmt.Errorf("results file %s line 1: %w", path, err)
		}
	}
	return h, nil
}

// Decode unmarshals the raw config part p.Name into p.Into. Its error
// names the field ("field header.config.workload.Rate: ..."), not the
// file: ReadHeader adds that.
func (c *RunConfig) Decode(p HeaderPart) error {
	var raw json.RawMessage
	switch p.Name {
	case "workload":
		raw = c.Workload
	case "policy":
		raw = c.Policy
	default:
		return fmt.Errorf("field header.config.%s: not a raw config part (want workload or policy)", p.Name)
	}
	if len(raw) == 0 {
		return fmt.Errorf("field header.config.%s: absent (written by an older tracebench?)", p.Name)
	}
	if err := json.Unmarshal(raw, p.Into); err != nil {
		return fieldError("header.config."+p.Name, err)
	}
	return nil
}

// checkFormat refuses a header of another layout than HeaderFormat.
func (h *Header) checkFormat() error {
	if h.Format == 0 || h.Format == HeaderFormat {
		return nil
	}
	return fmt.Errorf("field header.format is %d, this tracebench (%s) reads format %d (the file was written by tracebench %q)",
		h.Format, Version, HeaderFormat, h.Version)
}

// fieldError rewrites a JSON type error as one line naming the field by
// its path in the line, prefix first ("field header.config.stream: got
// JSON string, want bool"); other errors are returned as they are.
func fieldError(prefix string, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	field := te.Field
	if prefix != "" {
		field = prefix + "." + field
	}
	return fmt.Errorf("field %s: got JSON %s, want %s", field, te.Value, te.Type)
}
