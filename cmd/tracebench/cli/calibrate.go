package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/calibrate"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/predict"
	"github.com/tracebench/tracebench/probe"
)

func init() { register(newCalibrateCmd) }

// calibrateOptions are the flags of `tracebench calibrate`.
type calibrateOptions struct {
	files   []string
	targets []string
	ps      probe.Spec
	out     string
	from    string
	name    string
	partial bool
	// halves also fits the engine-replay terms on each half of the probe.
	halves  bool
	cache   string
	replay  string
	hostTok int
	// second are the results files (or directories of them) of a second
	// probe of the same servers, fitted alike and compared.
	second []string
	// logs are llama-server logs, one per server in --target's order;
	// secondLogs those of the second probe's servers.
	logs, secondLogs []string
}

// newCalibrateCmd is `tracebench calibrate`.
func newCalibrateCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "calibrate (RESULTS.jsonl... | --target URL...) -o profile.yaml [--from PROFILE] [--partial]",
		Short: "Fit an engine profile to a live run's results",
		Long: `calibrate fits the engine's step latency model to the results of a run
against a live server (replay --target, ideally with --scrape), from the
client-side figures alone: send, first-token and done times, prompt, cached
and output tokens, and every backend's requests in flight over time. It
prints each parameter with its standard error, the fit's residuals and
what the run could not identify, and writes a profile for --mock-profile
and 'tracebench predict'.

A useful run has several concurrency levels (so γ and c_decode can be told
apart), varied prompt lengths (for c_prefill) and at least 20 requests
with two or more output tokens. Scheduler limits and the block size come
from --from (default: the default profile); num_gpu_blocks from the run's
scrapes of vllm:cache_config_info when present.

With two or more servers (--target repeated, or results files with
several backends) it also fits each server's requests on their own and
prints the parameters side by side, saying which differ by more than
two combined standard errors.

With --target (repeatable) it first runs a designed probe against the live
servers, within --probe-budget (default 3 minutes, shared equally by its
phases, each sending until its share is used): unrelated prompts of
--probe-max-prompt/48 to --probe-max-prompt words at 1, 2 and 4 requests
in flight per backend, short prompts with long outputs at 8, 16, ...
--probe-max-concurrency (on a llama.cpp server, unless the flag is given,
its slot count instead, with the decode-heavy phases at 2 and 4), then
prompts extending long shared system prompts (on such a small server first
one at a time), and last a repeat of its first phase (c1-again: how far the
servers' speed moved over the probe), each phase into its own results file
under --probe-dir, and fits those.`,
	}, &calibrateOptions{})
}

// bind declares calibrate's flags.
func (o *calibrateOptions) bind(fs *pflag.FlagSet) {
	fs.StringVarP(&o.out, "out", "o", "", "write the fitted profile here (YAML)")
	fs.StringVar(&o.from, "from", profile.DefaultName, "starting profile: scheduler limits, KV cache, and values of parameters the run cannot identify")
	fs.StringVar(&o.name, "name", "calibrated", "name of the fitted profile")
	fs.StringArrayVar(&o.targets, "target", nil, "probe this live server (repeatable) instead of reading results files")
	fs.StringVar(&o.ps.Dir, "probe-dir", "calibrate-probe", "directory for the probe's results files")
	fs.DurationVar(&o.ps.Budget, "probe-budget", 3*time.Minute, "longest the probe may run (each phase gets an equal share)")
	fs.IntVar(&o.ps.MaxConcurrency, "probe-max-concurrency", 32, "highest concurrency per backend the probe reaches (powers of two from 1)")
	fs.IntVar(&o.ps.MaxPrompt, "probe-max-prompt", 1536, "longest probe prompt, words (about as many tokens or more); lower it for slow servers")
	fs.Uint64Var(&o.ps.Seed, "probe-seed", 0, "seed of the probe's prompts (0: from the clock, so a repeated probe does not hit the prompt cache)")
	fs.StringVar(&o.cache, "cache", calibrate.CacheAuto, "cache model of the fitted profile: auto (per-slot when llama.cpp served the runs, else the starting profile's), paged-prefix or per-slot")
	fs.StringVar(&o.replay, "engine-replay", calibrate.ReplayAuto, "fit llama-server's slot saves, restores and ubatches by replaying the probe through the simulator's engine: auto (when llama.cpp served the runs and the step model alone left TTFT residuals over 100 % of the mean), on or off")
	fs.IntVar(&o.hostTok, "host-cache-tokens", 0, "llama-server's host prompt cache in tokens: --cache-ram MiB × 1048576 / the model's KV bytes per token (0: 1,048,576 assumed)")
	fs.BoolVar(&o.halves, "halves", false, "also fit the engine-replay terms on each half of the probe's requests (every other request) and say whether the two agree within their standard errors")
	fs.StringArrayVar(&o.second, "second-probe", nil, "results files, or a directory of them, of a second probe of the same servers (repeatable): fit them alike and say which terms agree within their standard errors and how far the servers' own decode speed moved")
	fs.StringArrayVar(&o.logs, "server-log", nil, "llama-server's log (its standard error) of a server the runs used, from its start (repeatable, in --target's order): price the slot saves from the log's 'prompt cache update took' lines and compare the saves placed with the log's")
	fs.StringArrayVar(&o.secondLogs, "second-server-log", nil, "llama-server's log of a server of the second probe (repeatable, as --server-log): the second probe's saves are priced from it")
	fs.BoolVar(&o.partial, "partial", false, "accept a run with a single concurrency level, keeping the starting profile's γ and c_decode")
}

// run fits the results files args, or those of a probe of --target.
func (o *calibrateOptions) run(cmd *cobra.Command, args []string) error {
	o.files = args
	switch {
	case len(args) > 0 && len(o.targets) > 0:
		return usagef("give results files or --target, not both")
	case len(args) == 0 && len(o.targets) == 0:
		return usagef("give results files to fit, or --target URL to probe a live server")
	case len(o.targets) > 0:
		if err := checkTargets(o.targets); err != nil {
			return err
		}
		if o.ps.Budget < 10*time.Second || o.ps.MaxConcurrency < 2 || o.ps.MaxPrompt < 48 {
			return usagef("--probe-budget %v, --probe-max-concurrency %d, --probe-max-prompt %d: want at least 10s, 2 and 48",
				o.ps.Budget, o.ps.MaxConcurrency, o.ps.MaxPrompt)
		}
		o.ps.Targets, o.ps.Log = o.targets, flagWriter{cmd.ErrOrStderr(), flagNames}
		o.ps.KeepConcurrency = cmd.Flags().Changed("probe-max-concurrency")
		res, err := probe.Run(cmd.Context(), o.ps)
		if err != nil {
			return err
		}
		o.files = res.Files
	}
	return runCalibrate(cmd.OutOrStdout(), o)
}

// fitOptions are the fit's options from the flags, starting from start.
func (o *calibrateOptions) fitOptions(start *profile.Profile) calibrate.Options {
	return calibrate.Options{Start: start, Partial: o.partial, Name: o.name, Cache: o.cache, HostCacheTokens: o.hostTok,
		Prompts: predict.RunPrompts}
}

// runCalibrate fits, prints and writes the profile.
func runCalibrate(w io.Writer, o *calibrateOptions) error {
	start, err := resolveProfile(o.from)
	if err != nil {
		return usagef("--from: %v", err)
	}
	switch o.replay {
	case calibrate.ReplayAuto, calibrate.ReplayOn, calibrate.ReplayOff:
	default:
		return usagef("--engine-replay %q: want auto, on or off", o.replay)
	}
	if o.hostTok < 0 {
		return usagef("--host-cache-tokens %d: want ≥ 0 (0: the assumed default)", o.hostTok)
	}
	in, err := calibrate.Load(o.files)
	if err != nil {
		return err
	}
	opt := o.fitOptions(start)
	if opt.SaveLogs, err = readSaveLogs("--server-log", o.logs); err != nil {
		return err
	}
	if len(o.secondLogs) > 0 && len(o.second) == 0 {
		return usagef("--second-server-log: give the second probe's results with --second-probe")
	}
	res, err := calibrate.Fit(in, opt)
	if err != nil {
		if errors.Is(err, calibrate.ErrSingleLevel) {
			return usageError{Err: fmt.Errorf("%w ('tracebench calibrate --target URL' probes a live server at several levels)", err)}
		}
		return err
	}
	var halves []calibrate.HalfTerm
	replayed := calibrate.WantsReplay(o.replay, res, in)
	if replayed {
		if o.halves {
			if halves, err = calibrate.Halves(res, in, predict.RunPrompts); err != nil {
				return err
			}
		}
		if err := calibrate.Refit(res, in, predict.RunPrompts); err != nil {
			return err
		}
	} else if o.halves {
		return usagef("--halves: the halves are fitted by engine replay, which this run does not use (give --engine-replay on)")
	}
	fmt.Fprintf(w, "calibrate: %d successful requests (%d failed, %d cut off by a stopped run) from %d file(s)\n\n",
		in.Requests, in.Failed, in.Canceled, len(o.files))
	if err := res.Render(w); err != nil {
		return err
	}
	if halves != nil {
		fmt.Fprintf(w, "\nengine terms fitted on each half of the probe's requests:\n")
		if err := calibrate.WriteHalves(w, halves); err != nil {
			return err
		}
	}
	if len(o.second) > 0 {
		if err := writeSecondProbe(w, o, start, res, replayed); err != nil {
			return err
		}
	}
	if len(in.Backends()) > 1 {
		fmt.Fprintf(w, "\nper server, each fitted on its own requests (differ: more than 2 combined standard errors apart):\n")
		opt := calibrate.Options{Start: start, Partial: true, Name: o.name, Cache: o.cache}
		if err := calibrate.WriteServers(w, calibrate.FitServers(in, opt), o.targets); err != nil {
			return err
		}
	}
	if o.out == "" {
		return nil
	}
	data, err := profile.Marshal(res.Profile)
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.out, data, 0o644); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	fmt.Fprintf(w, "\nprofile: %s\n", o.out)
	return nil
}

// readSaveLogs reads the log files of flag (--server-log or
// --second-server-log).
func readSaveLogs(flag string, paths []string) ([]calibrate.SaveLog, error) {
	var logs []calibrate.SaveLog
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, usagef("%s: %v", flag, err)
		}
		l, err := calibrate.ReadSaveLog(f, p)
		f.Close()
		if err != nil {
			return nil, usagef("%s: %v", flag, err)
		}
		logs = append(logs, l)
	}
	return logs, nil
}
