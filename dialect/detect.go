package dialect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Detection is what Detect decided and why.
type Detection struct {
	// Dialect is the chosen dialect.
	Dialect *Dialect
	// Reason says which answer decided it, e.g. `/v1/models owned_by
	// "vllm"`.
	Reason string
}

// Detect asks the server at base which dialect it speaks: the owned_by
// of GET /v1/models ("vllm", "sglang", "llamacpp") or its Server header
// ("llama.cpp"), else the namespace of most names on GET /metrics, else
// OpenAI when /v1/models answered. It fails, naming the server, when the
// server answers neither probe.
func Detect(ctx context.Context, hc *http.Client, base string) (Detection, error) {
	mb, hdr, merr := get(ctx, hc, base, "/v1/models")
	if merr == nil {
		if d, why := fromModels(mb, hdr); d != nil {
			return Detection{Dialect: d, Reason: why}, nil
		}
	}
	pb, _, perr := get(ctx, hc, base, "/metrics")
	if perr == nil {
		names := ExpositionNames(UnwrapExposition(pb))
		if d := ByPrefix(names); d != nil {
			return Detection{Dialect: d, Reason: "/metrics names start with " + d.Metrics.Prefix}, nil
		}
	}
	if merr == nil {
		return Detection{Dialect: &openai, Reason: "/v1/models answered without a known owner, and /metrics has no known names"}, nil
	}
	return Detection{}, fmt.Errorf("%s answers none of the dialect probes (%v; %v)", Base(base), merr, perr)
}

// fromModels reads the dialect from a /v1/models answer.
func fromModels(b []byte, hdr http.Header) (*Dialect, string) {
	var v struct {
		Data []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &v) == nil {
		for _, m := range v.Data {
			if d, err := Lookup(m.OwnedBy); err == nil && d != &openai {
				return d, fmt.Sprintf("/v1/models owned_by %q", m.OwnedBy)
			}
		}
	}
	if s := hdr.Get("Server"); strings.Contains(strings.ToLower(s), "llama.cpp") {
		return &llamacpp, fmt.Sprintf("Server header %q", s)
	}
	return nil, ""
}

// UnwrapExposition returns the Prometheus text of a /metrics body: the
// body itself, or the text inside it when the body is one JSON string
// literal (llama-server b7099 sends its exposition that way).
func UnwrapExposition(b []byte) []byte {
	t := bytes.TrimSpace(b)
	if len(t) < 2 || t[0] != '"' {
		return b
	}
	var s string
	if json.Unmarshal(t, &s) != nil {
		return b
	}
	return []byte(s)
}

// ExpositionNames returns the metric names of a Prometheus text page, in
// order of appearance, without duplicates (a cheap scan for detection and
// messages; the client parses pages with the Prometheus parser).
func ExpositionNames(b []byte) []string {
	var names []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		n := line
		if i := strings.IndexAny(n, "{ \t"); i >= 0 {
			n = n[:i]
		}
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}
