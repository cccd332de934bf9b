package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/predict"
	"github.com/tracebench/tracebench/verdict"
)

// runPredictDir predicts every run of the bench directory o.live.
func runPredictDir(cmd *cobra.Command, o *predictOptions, prof *profile.Profile, ro metrics.Options) error {
	res, err := predict.Dir(cmd.Context(), predict.DirSpec{Dir: o.live, Profile: prof, Out: o.out,
		SimSeed: o.seed, Report: ro, ErrOut: libOut(cmd.ErrOrStderr())})
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "predict: bench %s replayed on simulated engines with profile %s\n", o.live, prof.Name)
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "not predicted: %s\n", s)
	}
	for _, pp := range res.Policies {
		fmt.Fprintf(w, "\n%s (%d seed(s), means):\n", pp.Policy, len(pp.Runs))
		if err := pp.Mean.WriteTable(w); err != nil {
			return err
		}
	}
	if len(res.Agreement) > 0 {
		fmt.Fprintf(w, "\nrank agreement over the policies predicted for every seed:\n")
		if err := verdict.WriteAgreement(w, res.Agreement); err != nil {
			return err
		}
	}
	writeVerdicts(w, res)
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", renameFields(n, flagNames))
	}
	if o.record {
		if err := predict.RecordAgreement(o.profile, o.live, res); err != nil {
			return err
		}
		fmt.Fprintf(w, "recorded in %s\n", o.profile)
	}
	return nil
}

// writeVerdicts prints the measured and the simulated verdict.
func writeVerdicts(w io.Writer, res *predict.DirResult) {
	for _, v := range []struct {
		name string
		v    *verdict.Verdict
	}{{"measured", res.Live}, {"simulated", res.Sim}} {
		if v.v == nil {
			fmt.Fprintf(w, "\n%s verdict: n/a (fewer than two policies predicted for every seed)\n", v.name)
			continue
		}
		fmt.Fprintf(w, "\n%s ", v.name)
		v.v.WriteText(w)
	}
}
