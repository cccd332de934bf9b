package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/reports"
)

// benchVerdict runs seeds 1..--seeds−1 of every policy (seed 0 is first,
// whose runs the report details), each seed shifting the workload seed,
// hence the arrivals, and the mock's seed, into --out/seed-K (the
// policies of a seed side by side, as the first seed's), then sets
// o.verdict from all of them. With one policy there is no verdict.
func benchVerdict(cmd *cobra.Command, o *benchOptions, ro reports.Options, names []string, first []*reports.Summary) error {
	if len(first) != len(names) || len(names) < 2 {
		return nil
	}
	runs := map[string][]*reports.Summary{}
	var order []string
	for i, s := range first {
		runs[names[i]] = append(runs[names[i]], s)
		order = append(order, names[i])
	}
	for k := 1; k < o.seeds; k++ {
		oo := *o
		oo.wf.Seed, oo.mf.Seed = o.wf.Seed+uint64(k), o.mf.Seed+int64(k)
		oo.out = filepath.Join(o.out, "seed-"+strconv.Itoa(k))
		if err := os.MkdirAll(oo.out, 0o755); err != nil {
			return fmt.Errorf("--out %s: %w", oo.out, err)
		}
		sums, err := benchAll(cmd.Context(), cmd, &oo, ro, names)
		if err != nil {
			return err
		}
		if len(sums) != len(names) {
			return fmt.Errorf("seed %d: %d of %d policies produced a summary", k, len(sums), len(names))
		}
		for i, name := range names {
			runs[name] = append(runs[name], sums[i])
		}
	}
	v := reports.DecideVerdict(order, runs)
	if v != nil {
		v.ProfileNote = profileNote(o.mf, len(o.targets) > 0)
	}
	o.verdict = v
	return nil
}

// profileNote states the expected prediction error of the engine profile
// the runs simulated: a calibrated profile's fit residuals, else that the
// figures describe the model only.
func profileNote(m fleetFlags, live bool) string {
	if live {
		return ""
	}
	name, err := m.profileName()
	if err != nil {
		return ""
	}
	p, err := resolveProfile(name)
	if err != nil {
		return ""
	}
	return profileErrorNote(p)
}

// profileErrorNote describes how far a profile's predictions can be
// trusted.
func profileErrorNote(p *profile.Profile) string {
	if n := len(p.Validation); n > 0 {
		var t, o, e float64
		for _, v := range p.Validation {
			t, o, e = max(t, math.Abs(v.TTFTP50)), max(o, math.Abs(v.TPOTP50)), max(e, math.Abs(v.E2EP50))
		}
		return fmt.Sprintf("engine profile %s predicted %d measured run(s) with p50 errors up to TTFT %.1f %%, TPOT %.1f %%, E2E %.1f %% "+
			"(tracebench predict --record)", p.Name, n, t, o, e)
	}
	if p.Fit == nil {
		return fmt.Sprintf("engine profile %s is not calibrated: the figures describe its model, not a measured fleet "+
			"(see 'tracebench calibrate' and 'tracebench predict')", p.Name)
	}
	s := fmt.Sprintf("engine profile %s was calibrated on %d requests; per-request fit residuals", p.Name, p.Fit.Requests)
	for _, r := range p.Fit.Residuals {
		s += fmt.Sprintf(" %s ±%.1f %%", r.Kind, 100*r.RelRMS)
	}
	return s + "; 'tracebench predict' on a measured run gives the error of its percentiles"
}

// writeReportsVerdict prints the comparison table and the verdict and
// writes report.md (opening with the verdict), summary.csv and
// summary.json into dir.
func writeReportsVerdict(cmd *cobra.Command, dir string, runs []*reports.Summary, v *reports.Verdict) error {
	if err := reports.WriteTable(cmd.OutOrStdout(), runs); err != nil {
		return err
	}
	if v != nil {
		fmt.Fprintln(cmd.OutOrStdout())
		v.WriteText(cmd.OutOrStdout())
	}
	if err := reports.WriteDir(dir, runs, reports.RenderOptions{Verdict: v}); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nreport: %s\n", filepath.Join(dir, "report.md"))
	return nil
}
