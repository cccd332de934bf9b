package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

func init() { register(newPredictCmd) }

// predictOptions are the flags of `tracebench predict`.
type predictOptions struct {
	live    string
	profile string
	out     string
	seed    int64
	record  bool
	so      sloFlags
}

func newPredictCmd() *cobra.Command {
	o := &predictOptions{}
	cmd := &cobra.Command{
		Use:   "predict LIVE.jsonl --profile P [--out DIR]",
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

The requests are rebuilt from the run's header (trace file or workload
generator, seed, rate and limits), so the trace file must still be at the
path the run read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.live = args[0]
			return runPredict(cmd, o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.profile, "profile", "", "engine profile of the simulated engines: a built-in name or a YAML file (required)")
	fs.StringVar(&o.out, "out", "tracebench-predict", "directory for predicted.jsonl and report.md")
	fs.Int64Var(&o.seed, "sim-seed", 1, "seed of the simulated engines' jitter")
	fs.BoolVar(&o.record, "record", false, "add the p50 errors to the profile file's validation list (a file, not a built-in profile); bench and sweep verdicts quote them")
	o.so.bind(fs)
	return cmd
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
	ro, err := o.so.options()
	if err != nil {
		return err
	}
	h, rs, err := specFromHeader(o.live)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	measured, err := reports.Summarize(o.live, ro)
	if err != nil {
		return err
	}
	rs.Report, rs.ErrOut, rs.Quiet = ro, cmd.ErrOrStderr(), true
	engines := prof.Config()
	engines.Seed = o.seed
	rs.Mode, rs.Sim, rs.Fleet = "sim", len(h.Backends), &engines
	rs.Results = filepath.Join(o.out, "predicted.jsonl")
	predicted, err := bench.Run(cmd.Context(), rs)
	if err != nil {
		return fmt.Errorf("predict: simulated replay: %w", err)
	}
	scale, err := promptScale(o.live, rs.Results)
	if err != nil {
		return err
	}
	if math.Abs(scale-1) > promptScaleTolerance {
		// The server tokenised the prompts into more (or fewer) tokens
		// than the simulated engines did: replay again with prompts
		// scaled to the server's counts.
		rs.SimTokenizer = tokenizer.Scaled{Base: tokenizer.Whitespace{}, Ratio: scale}
		if predicted, err = bench.Run(cmd.Context(), rs); err != nil {
			return fmt.Errorf("predict: simulated replay: %w", err)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "note: the server counted %.3f prompt tokens per simulated one (its own tokenizer); "+
			"the simulated prompts were scaled to match\n", scale)
	}
	measured.Header.Policy += " (measured)"
	predicted.Header.Policy += " (predicted, profile " + prof.Name + ")"
	pred := reports.ComparePrediction(prof.Name, measured, predicted)
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "predict: %s (%d requests, %d backends) replayed on %d simulated engines with profile %s\n\n",
		o.live, measured.Requests, len(h.Backends), rs.Sim, prof.Name)
	if err := pred.WriteTable(w); err != nil {
		return err
	}
	if measured.Requests != predicted.Requests {
		fmt.Fprintf(w, "\nnote: the measured run has %d requests, the simulated one %d (a stopped or interrupted run); figures compare unequal sets\n",
			measured.Requests, predicted.Requests)
	}
	err = reports.WriteDir(o.out, []*reports.Summary{measured, predicted},
		reports.RenderOptions{Title: "tracebench prediction", Prediction: pred})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nreport: %s\n", filepath.Join(o.out, "report.md"))
	if o.record {
		if err := recordValidation(o.profile, o.live, pred); err != nil {
			return err
		}
		fmt.Fprintf(w, "recorded in %s\n", o.profile)
	}
	return nil
}

// recordValidation appends the prediction's p50 errors to the profile
// file's validation list.
func recordValidation(path, live string, pred *reports.Prediction) error {
	p, err := profile.Load(path)
	if err != nil {
		return err
	}
	v := profile.Validation{Run: live}
	for _, r := range pred.Rows {
		e := r.Err
		if math.IsNaN(e) {
			e = 0
		}
		switch r.Metric {
		case "TTFT p50":
			v.TTFTP50 = math.Round(e*10) / 10
		case "TPOT p50":
			v.TPOTP50 = math.Round(e*10) / 10
		case "E2E p50":
			v.E2EP50 = math.Round(e*10) / 10
		}
	}
	p.Validation = append(p.Validation, v)
	data, err := profile.Marshal(p)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	return nil
}

// specFromHeader rebuilds the workload and policy of a run from its
// results file's header: the workload flags as recorded, the router and
// queue with every parameter as resolved.
func specFromHeader(path string) (replay.Header, runSpec, error) {
	var rs runSpec
	h, err := replay.ReadHeader(path, replay.HeaderPart{Name: "workload", Into: &rs.Workload},
		replay.HeaderPart{Name: "policy", Into: &rs.Policy})
	if err != nil {
		return h, rs, err
	}
	if len(h.Backends) == 0 {
		return h, rs, fmt.Errorf("results file %s line 1: field header.backends: lists no backends", path)
	}
	rs.Policy.PolicyConfig = ""
	rs.Policy.Router, rs.Policy.Queue = h.Router, h.Queue
	rs.Policy.RouterArgs, rs.Policy.QueueArgs = kvList(h.RouterParams), kvList(h.QueueParams)
	rs.Client.API = h.Config.API
	if rs.Client.API == "" {
		rs.Client.API = "completions"
	}
	return h, rs, nil
}

// kvList renders params as sorted k=v pairs.
func kvList(p map[string]string) []string {
	out := make([]string, 0, len(p))
	for k, v := range p {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
