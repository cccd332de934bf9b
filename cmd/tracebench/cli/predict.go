package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/predict"
	"github.com/tracebench/tracebench/reports"
)

func init() { register(newPredictCmd) }

// predictOptions are the flags of `tracebench predict`.
type predictOptions struct {
	live    string
	profile string
	out     string
	seed    int64
	record  bool
	after   []string
	so      flags.SLO
}

// newPredictCmd is `tracebench predict`.
func newPredictCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "predict (LIVE.jsonl [--after EARLIER.jsonl,...] | BENCH-DIR) --profile P [--out DIR]",
		Short: "Replay a measured run in simulation with a profile and show the prediction error",
		Long: `predict takes the results file of a measured run (against a live fleet or
the mock), replays the same requests with the same arrival times, router,
queue and number of backends on simulated engines in virtual time with
the engine profile --profile (a built-in name or a file, e.g. from
'tracebench calibrate'), and prints predicted against measured with the
error of each figure: TTFT p50/p90/p99, TPOT p50/p90, E2E p50/p90,
throughput and the server's prefix hit rate. --out DIR gets the simulated
results file and a report.md with both runs and a "Prediction error"
section.

Given a 'tracebench bench' output directory, it predicts every policy's
run of every seed and prints, per policy, predicted against measured
(means over the seeds) with each error; per metric Kendall's τ of the
policies' order and whether the best policy is the same; and both
verdicts. A missing or partial results file, or one from another
workload, is named and the rest predicted. --record then stores the
agreement in the profile file, which bench --sim verdicts quote.

The requests are rebuilt from the run's header (trace file or workload
generator, seed, rate and limits), so the trace file must still be at the
path the run read. A profile whose cache model cannot describe the server
(per-slot against vLLM or SGLang) is refused.`,
		Args: cobra.ExactArgs(1),
	}, &predictOptions{})
}

// bind declares predict's flags.
func (o *predictOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.profile, "profile", "", "engine profile of the simulated engines: a built-in name or a YAML file (required)")
	fs.StringVar(&o.out, "out", "tracebench-predict", "directory for predicted.jsonl and report.md")
	fs.Int64Var(&o.seed, "sim-seed", 1, "seed of the simulated engines' jitter")
	fs.BoolVar(&o.record, "record", false, "add the p50 errors to the profile file's validation list (a file, not a built-in profile); bench and sweep verdicts quote them")
	fs.StringSliceVar(&o.after, "after", nil, "earlier results files of the same servers that the run followed (repeat or comma-separate, in any order): replayed first so the simulated llama.cpp slots and host prompt cache start warm (per-slot profiles)")
	o.so.Bind(fs)
}

// run predicts the run of args[0].
func (o *predictOptions) run(cmd *cobra.Command, args []string) error {
	o.live = args[0]
	return runPredict(cmd, o)
}

// runPredict simulates the run, compares and writes the report.
func runPredict(cmd *cobra.Command, o *predictOptions) error {
	if o.profile == "" {
		return usagef("--profile: give the engine profile to predict with (see 'tracebench profiles')")
	}
	prof, err := resolveProfile(o.profile)
	if err != nil {
		return usagef("--profile: %v", err)
	}
	if _, builtin := profile.BuiltinYAML(o.profile); builtin && o.record {
		return usagef("--record: %s is a built-in profile; save it to a file first ('tracebench profiles %s > my.yaml')", o.profile, o.profile)
	}
	ro, err := o.so.Options()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	if st, err := os.Stat(o.live); err == nil && st.IsDir() {
		if len(o.after) > 0 {
			return usagef("--after: give it with one results file; a bench directory's runs each started from the isolation bench gave them")
		}
		return runPredictDir(cmd, o, prof, ro)
	}
	res, err := predict.Predict(cmd.Context(), predict.Spec{Live: o.live, Profile: prof, SimSeed: o.seed, After: o.after,
		Results: filepath.Join(o.out, "predicted.jsonl"), Report: ro, ErrOut: libOut(cmd.ErrOrStderr())})
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if res.PromptScale != 1 {
		fmt.Fprintf(w, "note: the server counted %.3f prompt tokens per simulated one (its own tokenizer); "+
			"the simulated prompts were scaled to match\n", res.PromptScale)
	}
	fmt.Fprintf(w, "predict: %s (%d requests, %d backends) replayed on %d simulated engines with profile %s\n\n",
		o.live, res.Measured.Requests, res.Backends, res.Backends, prof.Name)
	if err := res.Prediction.WriteTable(w); err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "\nnote: %s\n", renameFields(n, flagNames))
	}
	err = reports.WriteDir(o.out, []*metrics.Summary{res.Measured, res.Predicted},
		reports.RenderOptions{Title: "tracebench prediction", Prediction: res.Prediction})
	if err != nil {
		return err
	}
	fmt.Fprint(w, "\n"+reportPaths(filepath.Join(o.out, "report.md")))
	if o.record {
		if err := predict.RecordValidation(o.profile, o.live, res.Prediction); err != nil {
			return err
		}
		fmt.Fprintf(w, "recorded in %s\n", o.profile)
	}
	return nil
}
