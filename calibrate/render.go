package calibrate

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// Render writes the fitted parameters with their standard errors, the
// residuals and the warnings.
func (res *Result) Render(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "parameter\tvalue\t± std err\tunit\tidentified")
	for _, p := range res.Params {
		se := fmt.Sprintf("%.3g", p.StdErr)
		if !p.Identified {
			se = "n/a (not fitted)"
		} else if math.IsNaN(p.StdErr) {
			se = "n/a (not computable)"
		} else if p.Name == "jitter" {
			se = "n/a (median of gaps)"
		}
		fmt.Fprintf(tw, "%s\t%.4g\t%s\t%s\t%v\n", p.Name, p.Value, se, p.Unit, p.Identified)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range res.Residuals {
		fmt.Fprintf(w, "residuals %-4s %6d equations: RMS %.3g ms (%.1f %% of the mean)\n", r.Kind, r.N, r.RMSMs, 100*r.RelRMS)
	}
	fmt.Fprintf(w, "batch size (10th-90th percentile of the decode equations): %.1f to %.1f\n", res.BatchRange[0], res.BatchRange[1])
	for _, line := range []string{res.Speed, res.Saves} {
		if line != "" {
			fmt.Fprintln(w, line)
		}
	}
	for _, s := range res.Warnings {
		fmt.Fprintln(w, "warning: "+s)
	}
	return nil
}
