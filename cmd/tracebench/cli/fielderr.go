package cli

import (
	"errors"
	"io"
	"os"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/bench"
)

// The library's usage errors name the Go fields at fault
// ("Spec.Workload.Shard", "MockFleet.Replicas"); the command line
// names the flags that set them instead. Each table maps a field path to
// the flag (or flags, as the message should read) of the commands it
// serves.

// flagNames are the flags of replay, bench, sweep and the other
// commands that fill a library Spec, for the fields of every such Spec
// (Spec, CompareSpec, DecideSpec, SweepSpec, PredictSpec,
// PredictDirSpec, ProbeSpec) the library's messages name
// (fielderr_guard_test.go checks that none is missing). (The MockFleet fields have
// a table per command: `tracebench mock` and the in-process fleet name
// them differently.)
var flagNames = map[string]string{
	"Spec.Backends":                    "--target",
	"Spec.Results":                     "--out",
	"Spec.Sim":                         "--sim",
	"Spec.Policy.Router":               "--policy",
	"Spec.Policy.Queue":                "--queue",
	"Spec.Policy.RouterArgs":           "--router-param",
	"Spec.Policy.QueueArgs":            "--queue-param",
	"Spec.Policy.Filter":               "--filter",
	"Spec.Policy.FilterArgs":           "--filter-param",
	"Spec.Policy.PolicyConfig":         "--policy-config",
	"Spec.Policy.Capacity":             "--backend-capacity",
	"Spec.Policy.TokenBudget":          "--backend-token-budget",
	"Spec.Policy.MaxInflight":          "--max-inflight",
	"Spec.Workload.Workload":           "--workload",
	"Spec.Workload.WorkloadArgs":       "--workload-param",
	"Spec.Workload.Trace":              "--trace",
	"Spec.Workload.Format":             "--format",
	"Spec.Workload.TimeUnit":           "--time-unit",
	"Spec.Workload.Windows":            "--windows",
	"Spec.Workload.MaxRequests":        "--max-requests",
	"Spec.Workload.Shard":              "--shard",
	"Spec.Workload.CV":                 "--cv",
	"Spec.Workload.Sessions.Pacing":    "--sessions",
	"Spec.Workload.Sessions.OnFailure": "--on-turn-failure",
	"Spec.Workload.Sessions.Users":     "--users",
	"Spec.Workload.Sessions.Ramp":      "--ramp",
	"Spec.Workload.Sessions.MidStart":  "--mid-start",
	"Spec.Workload.Arrival":            "--arrival",
	"Spec.Workload.ShareGPT.Think":     "--sharegpt-think",
	"Spec.Workload.ShareGPT.Gap":       "--sharegpt-gap",
	"Spec.Workload.ShareGPT.Tokenizer": "--sharegpt-tokenizer",
	"Spec.Client.Dialect":              "--dialect",
	"Spec.Client.API":                  "--api",
	"Spec.Client.Headers":              "--header",
	"Spec.Report.SLO.PerUser":          "--slo-file",
	"Spec.Fleet.LoRA.MaxLoras":         "--mock-set max_loras",
	"Spec.Fleet.MaxModelLen":           "--mock-set max_model_len",
	"Spec.Fleet.NumGPUBlocks":          "--mock-blocks",
	"Spec.Preset":                      "--mock-profile",
	"CompareSpec.Routers":              "--policies",
	"CompareSpec.Jobs":                 "--jobs",
	"CompareSpec.Out":                  "--out",
	"CompareSpec.Seeds":                "--seeds",
	"CompareSpec.Targets":              "--target",
	"DecideSpec.Routers":               "--policies",
	"DecideSpec.Seeds":                 "--seeds",
	"DecideSpec.Out":                   "--out",
	"PredictSpec.Profile":              "--profile",
	"PredictSpec.After":                "--after",
	"ProbeSpec.Budget":                 "--probe-budget",
	"ProbeSpec.MaxConcurrency":         "--probe-max-concurrency",
	"ProbeSpec.MaxPrompt":              "--probe-max-prompt",
	"ProbeSpec.KeepConcurrency":        "--probe-max-concurrency",
	"SweepSpec.Out":                    "--out",
	"SweepSpec.Attainment":             "--attainment",
	"SweepSpec.Tolerance":              "--tolerance",
	"SweepSpec.MaxRuns":                "--max-runs",
	"SweepSpec.Growth":                 "--growth",
	"SweepSpec.MaxErrorRate":           "--max-error-rate",
	"SweepSpec.Cooldown":               "--cooldown",
	"SweepSpec.Jobs":                   "--jobs",
	"SweepSpec.Vary":                   "--vary",
	"SweepSpec.Ladder":                 "--rates",
	// calibrate's options, which its errors and predict's name.
	"CalibrateOptions.Start":   "--from",
	"CalibrateOptions.Cache":   "--cache",
	"CalibrateOptions.Partial": "--partial",
	// The traces package's options, which its errors name.
	"ReadOptions.Format":         "--format",
	"ReadOptions.TimeUnit":       "--time-unit",
	"ReadOptions.Windows":        "--windows",
	"ReadOptions.BlockSize":      "--block-size",
	"ArrivalOptions.TimeScale":   "--time-scale",
	"ArrivalOptions.Rate":        "--rate",
	"ArrivalOptions.CV":          "--cv",
	"ArrivalOptions.MaxRequests": "--max-requests",
	"ArrivalOptions.Duration":    "--duration",
	"ArrivalOptions.Start":       "--start",
	"ArrivalOptions.Process":     "--arrival",
	"AgenticOptions.Scale":       "--agentic-scale",
	"AgenticOptions.MaxInput":    "--agentic-max-input",
	"AgenticOptions.TokenTime":   "--agentic-token-time",
	"AgenticOptions.Stagger":     "--agentic-stagger",
	"AgenticOptions.Join":        "--agentic-join",
}

// fieldPath matches a field path in an error's text.
var fieldPath = regexp.MustCompile(`\b(?:Spec|MockFleet|CompareSpec|SweepSpec|DecideSpec|PredictSpec|PredictDirSpec|ProbeSpec|` +
	`ReadOptions|ArrivalOptions|AgenticOptions|CalibrateOptions)` +
	`(?:\.[A-Z][A-Za-z0-9]*)+`)

// flagErr rewrites the field paths err's text names into the flags
// names gives for them (paths it does not hold stay); the error it
// returns wraps err, so a usage error stays one.
func flagErr(err error, names map[string]string) error {
	if err == nil {
		return nil
	}
	text := renameFields(err.Error(), names)
	if text == err.Error() {
		return err
	}
	return renamedError{text: text, err: err}
}

// renameFields rewrites the field paths in text into the flags names
// gives for them (paths it does not hold stay).
func renameFields(text string, names map[string]string) string {
	return fieldPath.ReplaceAllStringFunc(text, func(p string) string {
		if f, ok := names[p]; ok {
			return f
		}
		return p
	})
}

// flagWriter is w with the field paths of every write, such as a
// library's log line, named as flags (by names).
type flagWriter struct {
	w     io.Writer
	names map[string]string
}

// Write writes p with its fields renamed, and reports p's length.
func (f flagWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(f.w, renameFields(string(p), f.names)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// File is the *os.File under f, or nil, for the library's terminal
// check.
func (f flagWriter) File() *os.File {
	switch w := f.w.(type) {
	case *os.File:
		return w
	case interface{ File() *os.File }:
		return w.File()
	}
	return nil
}

// libOut is w for a library Spec's ErrOut: its warnings and log lines
// name flags rather than fields. Give one command's Specs the same
// libOut, so that a warning the library writes once per writer stays
// once.
func libOut(w io.Writer) io.Writer { return &flagWriter{w: w, names: flagNames} }

// renamedError is err with its fields named as flags.
type renamedError struct {
	text string
	err  error
}

func (r renamedError) Error() string { return r.text }

func (r renamedError) Unwrap() error { return r.err }

// namingFlags makes cmd's and its subcommands' errors name flags rather
// than the library's fields.
func namingFlags(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error { return flagErr(run(c, args), flagNames) }
	}
	for _, sub := range cmd.Commands() {
		namingFlags(sub)
	}
}

// isField reports whether err is a usage error naming field.
func isField(err error, field string) bool {
	var ue bench.UsageError
	return errors.As(err, &ue) && ue.Field == field
}
