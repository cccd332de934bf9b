package reports

import (
	"math"

	"github.com/tracebench/tracebench/metrics"
)

// Plan is the answer of `tracebench plan`: for each router the fewest
// replicas that serve a target load under the SLO, in virtual time, with
// what that fleet costs; optionally the best prefill:decode split of a
// P/D fleet of a given size, and a check of one answer against the
// real-time mock.
type Plan struct {
	// Workload identifies the Requests replayed; Profile the engine
	// profile simulated.
	Workload string `json:"workload"`
	Profile  string `json:"profile"`
	// Load is the target: Rate in req/s, or Users concurrent closed-loop
	// users (the other 0). Unit is "req/s" or "users".
	Rate  float64 `json:"rate,omitempty"`
	Users int     `json:"users,omitempty"`
	Unit  string  `json:"unit"`
	// SLO is the bound every request is judged by, Target the SLA
	// attainment a fleet must reach (a fraction) on every one of Seeds.
	SLO    metrics.SLO `json:"slo"`
	Target float64     `json:"target"`
	Seeds  int         `json:"seeds"`
	// MaxReplicas is the largest fleet tried.
	MaxReplicas int `json:"max_replicas"`
	// PerHour is one replica's price in $/hour (0: not priced) and
	// PriceSource where it came from.
	PerHour     float64 `json:"per_hour,omitempty"`
	PriceSource string  `json:"price_source,omitempty"`
	// Rows are the routers' answers, in the order asked.
	Rows []PlanRow `json:"rows"`
	// PD are the prefill:decode splits of the P/D fleet (nil without
	// --pd-size), one per router.
	PD []PlanPD `json:"pd,omitempty"`
	// Check compares one row with a real-time mock run (nil without
	// --check).
	Check *PlanCheck `json:"check,omitempty"`
	// Seconds is the wall time the plan took.
	Seconds float64 `json:"seconds"`
}

// PlanRow is one router's answer.
type PlanRow struct {
	// Policy is the router's display name.
	Policy string `json:"policy"`
	// Replicas is the fewest replicas that met the SLO at the target load
	// on every seed (0: not met with MaxReplicas).
	Replicas int `json:"replicas"`
	// Figures are the run at Replicas on the first seed; Attainment the
	// lowest over the seeds. Zero when not met.
	Figures PlanFigures `json:"figures"`
	// LargestMet is, when the target was not met, the largest load (in
	// Unit) MaxReplicas met (0: none, down to the search's lowest).
	LargestMet float64 `json:"largest_met,omitempty"`
	// Tried lists every fleet size run, in order.
	Tried []PlanProbe `json:"tried"`
}

// Met reports whether the row's target was met.
func (r PlanRow) Met() bool { return r.Replicas > 0 }

// PlanFigures are the measured figures of one simulated run.
type PlanFigures struct {
	// Attainment is the SLA attainment in [0, 1] (the lowest over seeds).
	Attainment float64 `json:"attainment"`
	// TTFTp50, TTFTp90 and TPOTp50 are in ms.
	TTFTp50 float64 `json:"ttft_p50_ms"`
	TTFTp90 float64 `json:"ttft_p90_ms"`
	TPOTp50 float64 `json:"tpot_p50_ms"`
	// Throughput is successful req/s, OutputTokens output tokens/s.
	Throughput   float64 `json:"throughput_req_per_s"`
	OutputTokens float64 `json:"output_tok_per_s"`
	// FleetPerHour is the fleet's price in $/hour and PerMOutput the $ per
	// million output tokens (0 when not priced).
	FleetPerHour float64 `json:"fleet_per_hour"`
	PerMOutput   float64 `json:"per_m_output_tokens"`
}

// FiguresOf reads a run's PlanFigures from its Summary (a figure that
// is not a number, such as an unpriced cost, as 0).
func FiguresOf(s *metrics.Summary) PlanFigures {
	return PlanFigures{Attainment: finite(s.SLA.Attainment), TTFTp50: finite(s.TTFT.P50), TTFTp90: finite(s.TTFT.P90),
		TPOTp50: finite(s.TPOT.P50), Throughput: finite(s.Throughput.Requests),
		OutputTokens: finite(s.Throughput.OutputTokens), FleetPerHour: finite(s.Cost.FleetPerHour),
		PerMOutput: finite(s.Cost.PerMOutputTokens)}
}

// finite is v, or 0 when v is NaN or infinite (JSON has neither).
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// PlanProbe is one fleet size tried.
type PlanProbe struct {
	// Replicas is the fleet size; Attainment the lowest SLA attainment
	// over the seeds run (a run cut short once it could no longer pass
	// counts as its bound); Pass whether it met the target on every seed.
	Replicas   int     `json:"replicas"`
	Attainment float64 `json:"attainment"`
	Pass       bool    `json:"pass"`
}

// PlanPD is one router's prefill:decode splits of a P/D fleet.
type PlanPD struct {
	// Policy is the router (it picks both the prefill and the decode
	// replica); Size the fleet's replicas.
	Policy string `json:"policy"`
	Size   int    `json:"size"`
	// Splits are every split tried, prefill 1 to Size−1; Best indexes
	// the one that sustains the most (−1: none met the SLO).
	Splits []PlanSplit `json:"splits"`
	Best   int         `json:"best"`
}

// PlanSplit is one prefill:decode split and the most load it serves.
type PlanSplit struct {
	Prefill int `json:"prefill"`
	Decode  int `json:"decode"`
	// Sustained is the largest load (in Plan.Unit) meeting the SLO (0:
	// none); Figures its run on the first seed; Runs the runs searched.
	Sustained float64     `json:"sustained"`
	Figures   PlanFigures `json:"figures"`
	Runs      int         `json:"runs"`
}

// PlanCheck compares the plan's virtual-time figures with a run of the
// real-time mock fleet at the same point: the same router, replicas,
// load and Requests.
type PlanCheck struct {
	// Policy and Replicas are the row checked; Requests the Requests
	// each side replayed.
	Policy   string `json:"policy"`
	Replicas int    `json:"replicas"`
	Requests int    `json:"requests"`
	// Sim and Mock are the two runs' figures.
	Sim  PlanFigures `json:"sim"`
	Mock PlanFigures `json:"mock"`
	// Seconds is the real-time run's wall time.
	Seconds float64 `json:"seconds"`
}
