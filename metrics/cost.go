package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Price is what a Run's backends cost to keep, in dollars per hour each.
type Price struct {
	// PerHour is the price of every backend PerBackend does not name, in
	// $/hour (0: not priced).
	PerHour float64 `json:"per_hour,omitempty"`
	// PerBackend prices backends by URL (or simulated name), in $/hour;
	// it overrides PerHour.
	PerBackend map[string]float64 `json:"per_backend,omitempty"`
	// Source says where the price came from ("--cost-per-hour", "targets
	// file fleet.txt", "profile h100").
	Source string `json:"source,omitempty"`
}

// Priced reports whether any backend has a price.
func (p Price) Priced() bool { return p.PerHour > 0 || len(p.PerBackend) > 0 }

// FleetPerHour is the fleet's price in $/hour: Σ over backends of their
// price. ok is false, with the reason, when a backend has none.
func (p Price) FleetPerHour(backends []string) (perHour float64, reason string) {
	if !p.Priced() {
		return math.NaN(), "no price: give --cost-per-hour, a cost_per_hour= column in the targets file " +
			"or cost_per_hour in the engine profile"
	}
	if len(backends) == 0 {
		return math.NaN(), "no backends"
	}
	for _, b := range backends {
		v, ok := p.PerBackend[b]
		if !ok {
			v, ok = p.PerBackend[strings.TrimRight(b, "/")]
		}
		if !ok {
			v = p.PerHour
		}
		if v <= 0 {
			return math.NaN(), fmt.Sprintf("backend %s has no price", b)
		}
		perHour += v
	}
	return perHour, ""
}

// Cost is what a Run's work cost, from the fleet's price and the
// measured window: every backend of the header is charged for the whole
// window. Each figure is NaN when unknown, Note then says why.
type Cost struct {
	// FleetPerHour is Σ backend prices, in $/hour.
	FleetPerHour float64 `json:"fleet_per_hour"`
	// PerMOutputTokens and PerMInputTokens are dollars per million output
	// (completion) and input (prompt) tokens of successful requests.
	PerMOutputTokens float64 `json:"per_m_output_tokens"`
	PerMInputTokens  float64 `json:"per_m_input_tokens"`
	// PerMetRequest is dollars per request that met its SLO.
	PerMetRequest float64 `json:"per_met_request"`
	// Source is Price.Source; Note says why the cost is n/a ("" when
	// known).
	Source string `json:"source,omitempty"`
	Note   string `json:"note,omitempty"`
}

// CostOf prices a Summary with Price p: (Σ backend $/hour × window hours)
// / tokens. With every backend at one price, p is Price{PerHour: x}.
func CostOf(s *Summary, p Price) Cost {
	fleet, reason := p.FleetPerHour(s.Header.Backends)
	c := Cost{FleetPerHour: fleet, Source: p.Source, Note: reason,
		PerMOutputTokens: PerMillion(fleet, s.Throughput.OutputTokens),
		PerMInputTokens:  PerMillion(fleet, s.Throughput.InputTokens),
		PerMetRequest:    PerUnit(fleet, s.SLA.Goodput)}
	if c.Note == "" && !(s.Window.Seconds > 0) {
		c.Note = "empty measured window"
	}
	return c
}

// PerMillion is dollars per million units served at rate units/s by a
// fleet costing perHour $/hour (NaN when either is not positive).
func PerMillion(perHour, rate float64) float64 { return 1e6 * PerUnit(perHour, rate) }

// PerUnit is dollars per unit served at rate units/s by a fleet costing
// perHour $/hour (NaN when either is not positive).
func PerUnit(perHour, rate float64) float64 {
	if !(perHour > 0) || !(rate > 0) || math.IsInf(rate, 0) {
		return math.NaN()
	}
	return perHour / 3600 / rate
}

// ParsePrice parses a price in $/hour: a finite number ≥ 0. The error
// says what is wrong with text; the caller names the flag or the file
// and column.
func ParsePrice(text string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "$")), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: want a price in $/hour, a number ≥ 0", text)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q: negative price: want a number ≥ 0 ($/hour)", text)
	}
	return v, nil
}
