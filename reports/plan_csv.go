package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// planCSVHead is plan.csv's header: one row per router, then one per
// prefill:decode split (kind "pd").
var planCSVHead = []string{"kind", "policy", "replicas", "prefill", "decode", "load", "unit", "met", "attainment",
	"ttft_p50_ms", "ttft_p90_ms", "tpot_p50_ms", "throughput_req_per_s", "output_tok_per_s", "fleet_per_hour",
	"per_m_output_tokens", "largest_met", "runs"}

// WritePlanCSV writes plan.csv: each router's answer (kind "replicas";
// load the target, replicas 0 and met false when not met) and each
// split of a P/D fleet (kind "pd"; load the most it sustained).
func WritePlanCSV(w io.Writer, p *Plan) error {
	return writeCSV(w, "plan.csv", planCSVHead, func(write func([]string)) {
		for _, r := range p.Rows {
			row := planCSVRow("replicas", r.Policy, r.Replicas, 0, 0, p.target(), p.Unit, r.Met(), r.Figures, len(r.Tried))
			row[16] = num(r.LargestMet)
			write(row)
		}
		for _, pd := range p.PD {
			for _, s := range pd.Splits {
				write(planCSVRow("pd", pd.Policy, pd.Size, s.Prefill, s.Decode, s.Sustained, p.Unit, s.Sustained > 0,
					s.Figures, s.Runs))
			}
		}
	})
}

// planCSVRow is one row of plan.csv (largest_met empty).
func planCSVRow(kind, policy string, replicas, prefill, decode int, load float64, unit string, met bool,
	f PlanFigures, runs int) []string {
	return []string{kind, policy, strconv.Itoa(replicas), strconv.Itoa(prefill), strconv.Itoa(decode), num(load), unit,
		strconv.FormatBool(met), num(f.Attainment), num(f.TTFTp50), num(f.TTFTp90), num(f.TPOTp50), num(f.Throughput),
		num(f.OutputTokens), num(f.FleetPerHour), num(f.PerMOutput), "", strconv.Itoa(runs)}
}

// WritePlanDir writes plan.md, plan.csv and plan.json into dir.
func WritePlanDir(dir string, p *Plan) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("plan report dir: %w", err)
	}
	if err := writeFile(filepath.Join(dir, "plan.md"), func(w io.Writer) error {
		WritePlanMarkdown(w, p)
		return nil
	}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "plan.csv"), func(w io.Writer) error { return WritePlanCSV(w, p) }); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "plan.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return fmt.Errorf("write plan.json: %w", err)
		}
		return nil
	})
}
