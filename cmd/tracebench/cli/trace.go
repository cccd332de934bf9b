package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/traces"
)

func init() { register(newTraceCmd) }

// traceInput chooses the Requests of a trace subcommand: a file, or a
// workload generator, then the arrival window.
type traceInput struct {
	Format      string
	BlockSize   int
	TimeUnit    string
	SkipInvalid bool
	Windows     string
	ShareGPT    shareGPTFlags
	Agentic     traces.AgenticOptions
	Workload    string
	Params      traces.Params
	Seed        uint64
	Arrivals    traces.ArrivalOptions
}

func (in *traceInput) bindFile(fs *pflag.FlagSet) {
	fs.StringVar(&in.Format, "format", "auto", "trace format: auto|"+strings.Join(traces.Formats, "|"))
	fs.IntVar(&in.BlockSize, "block-size", 0, flags.BlockSizeHelp)
	fs.StringVar(&in.TimeUnit, "time-unit", "", flags.TimeUnitHelp)
	fs.StringVar(&in.Windows, "windows", "", flags.WindowsHelp)
	fs.BoolVar(&in.SkipInvalid, "skip-invalid", false, "skip malformed records (counted) instead of failing")
	flags.BindShareGPT(fs, &in.ShareGPT)
	flags.BindAgentic(fs, &in.Agentic)
}

func (in *traceInput) bindWorkload(fs *pflag.FlagSet) {
	fs.StringVar(&in.Workload, "workload", "", "workload generator: "+strings.Join(traces.WorkloadNames(), ", "))
	flags.BindWorkloadParams(fs, &in.Params, "generator parameter k=v (repeatable)")
	fs.Uint64Var(&in.Seed, "seed", 1, "seed of the generator, of a servegen directory's requests and of --rate arrivals")
}

func (in *traceInput) bindArrivals(fs *pflag.FlagSet) {
	a := &in.Arrivals
	fs.Float64Var(&a.TimeScale, "time-scale", 1, "multiply the trace's inter-arrival times by this (0.5 = twice as fast)")
	fs.Float64Var(&a.Rate, "rate", 0, "request rate in req/s replacing the trace's times (0 = keep them)")
	fs.StringVar(&a.Process, "arrival", traces.ProcessPoisson, "inter-arrival process with --rate: poisson|gamma|constant")
	fs.Float64Var(&a.CV, "cv", 1, "coefficient of variation of gamma inter-arrivals (burstiness)")
	fs.IntVar(&a.MaxRequests, "max-requests", 0, "keep at most this many requests (0 = all)")
	fs.DurationVar(&a.Duration, "duration", 0, "keep requests arriving before this much replay time (0 = all)")
	fs.DurationVar(&a.Start, "start", 0, "skip this much of the trace's own time first")
}

// open returns the Source, a display name, the skipped-count function and
// a closer.
func (in *traceInput) open(path string) (traces.Source, string, func() int, func(), error) {
	if err := bench.CheckArrivals(in.Arrivals); err != nil {
		return nil, "", nil, nil, err
	}
	if err := in.ShareGPT.Validate(); err != nil {
		return nil, "", nil, nil, err
	}
	in.Arrivals.Seed = in.Seed
	if path == "" {
		if err := in.ShareGPT.Check(""); err != nil {
			return nil, "", nil, nil, err
		}
		if in.TimeUnit != "" {
			return nil, "", nil, nil, usagef("--time-unit applies to a trace file, not to a generated workload")
		}
		if in.Windows != "" {
			return nil, "", nil, nil, usagef("--windows applies to a trace file, not to a generated workload")
		}
		if err := flags.CheckAgentic(in.Agentic, ""); err != nil {
			return nil, "", nil, nil, err
		}
		g, err := traces.NewWorkload(in.Workload, in.Params, in.Seed)
		if err != nil {
			return nil, "", nil, nil, usagef("--workload: %v", err)
		}
		name := bench.WorkloadIdent(in.Workload, in.Params, in.Seed)
		return traces.WithArrivals(g, in.Arrivals), name, func() int { return 0 }, func() {}, nil
	}
	if err := flags.CheckAgentic(in.Agentic, path); err != nil {
		return nil, "", nil, nil, err
	}
	fs, err := traces.Open(path, in.ShareGPT.ReadOptions(traces.ReadOptions{Format: in.Format, BlockSize: in.BlockSize,
		TimeUnit: in.TimeUnit, SkipInvalid: in.SkipInvalid, Seed: in.Seed, Windows: in.Windows, Agentic: in.Agentic}))
	if err != nil {
		return nil, "", nil, nil, err
	}
	if err := in.ShareGPT.Check(fs.Format()); err != nil {
		fs.Close()
		return nil, "", nil, nil, err
	}
	name := bench.TraceIdent(path, fs, in.Seed)
	return traces.WithArrivals(fs, in.Arrivals), name, fs.Skipped, func() { fs.Close() }, nil
}

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Generate, describe and convert request traces",
		Long: `trace works with request traces: gen writes a generated workload as a native
JSONL trace, stats describes a trace (or a workload), convert rewrites a
trace in the native format. Readable formats: ` + strings.Join(traces.Formats, ", ") + `
(detected from the first line unless --format is given).`,
	}
	cmd.AddCommand(newTraceGenCmd(), newTraceStatsCmd(), newTraceConvertCmd(), newTraceImportCmd())
	return cmd
}

// traceGenOptions are the flags of `trace gen`.
type traceGenOptions struct {
	in  traceInput
	out string
}

// newTraceGenCmd is `tracebench trace gen`.
func newTraceGenCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "gen --workload W [-p k=v]... [-o FILE]",
		Short: "Write a generated workload as a native JSONL trace",
		Long:  "gen writes a seeded workload as native JSONL; the same seed gives a byte-identical file.\n\n" + workloadHelp(),
		Args:  cobra.NoArgs,
	}, &traceGenOptions{})
}

// bind declares the flags of `trace gen`.
func (o *traceGenOptions) bind(fs *pflag.FlagSet) {
	o.in.bindWorkload(fs)
	o.in.bindArrivals(fs)
	bindTraceOut(fs, &o.out)
}

// run writes the workload as a native trace.
func (o *traceGenOptions) run(cmd *cobra.Command, _ []string) error {
	return runTraceGen(o, cmd.OutOrStdout(), cmd.ErrOrStderr())
}

func runTraceGen(o *traceGenOptions, stdout, stderr io.Writer) error {
	if o.in.Workload == "" {
		return usagef("trace gen: --workload is required (one of %s)", strings.Join(traces.WorkloadNames(), ", "))
	}
	src, name, _, closeSrc, err := o.in.open("")
	if err != nil {
		return err
	}
	defer closeSrc()
	n, err := writeNativeTo(o.out, stdout, src)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d requests of %s to %s\n", n, name, o.out)
	return nil
}

// bindTraceOut binds -o/--out, the native trace writeNativeTo writes.
func bindTraceOut(fs *pflag.FlagSet, out *string) {
	fs.StringVarP(out, "out", "o", "-", "file to write (- = standard output)")
}

// writeNativeTo writes src as native JSONL to path ("-" = stdout).
func writeNativeTo(path string, stdout io.Writer, src traces.Source) (int, error) {
	if path == "-" || path == "" {
		return traces.WriteNative(stdout, src)
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", path, err)
	}
	n, err := traces.WriteNative(f, src)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", path, cerr)
	}
	return n, err
}

// workloadHelp lists every workload with its parameters and defaults.
func workloadHelp() string {
	var b strings.Builder
	b.WriteString("Workloads (parameters with kinds and defaults):\n")
	for _, w := range traces.Workloads() {
		fmt.Fprintf(&b, "\n  %s: %s\n", w.Name, w.Doc)
		for _, p := range w.Params {
			fmt.Fprintf(&b, "      %-18s %-8s %-8s %s\n", p.Name, p.Kind, p.Default, p.Doc)
		}
		for _, name := range slices.Sorted(maps.Keys(w.Presets)) {
			var kv []string
			for _, k := range slices.Sorted(maps.Keys(w.Presets[name])) {
				kv = append(kv, k+"="+w.Presets[name][k])
			}
			fmt.Fprintf(&b, "      preset=%s sets %s\n", name, strings.Join(kv, " "))
		}
	}
	return b.String()
}

// traceStatsOptions are the flags of `trace stats`.
type traceStatsOptions struct {
	in   traceInput
	json bool
}

// newTraceStatsCmd is `tracebench trace stats`.
func newTraceStatsCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "stats [FILE...] | stats --workload W",
		Short: "Describe traces: requests, span, rate, lengths, users, sessions, prefix reuse",
		Long: `stats reads each trace (streaming) and prints the number of requests, the
span and mean rate, input and output length mean and percentiles, distinct
users and sessions, and for block-id traces (Mooncake hash_ids) the share of
blocks seen in an earlier request and the token hit rate of an infinite
prefix cache. With --workload it describes a generated workload instead.`,
	}, &traceStatsOptions{})
}

// bind declares the flags of `trace stats`.
func (o *traceStatsOptions) bind(fs *pflag.FlagSet) {
	o.in.bindFile(fs)
	o.in.bindWorkload(fs)
	o.in.bindArrivals(fs)
	fs.BoolVar(&o.json, "json", false, "print JSON (one object per trace) instead of a table")
}

// run describes the trace files args, or the workload.
func (o *traceStatsOptions) run(cmd *cobra.Command, args []string) error {
	return runTraceStats(o, args, cmd.OutOrStdout())
}

func runTraceStats(o *traceStatsOptions, files []string, stdout io.Writer) error {
	switch {
	case len(files) == 0 && o.in.Workload == "":
		return usagef("trace stats: give a trace FILE or --workload W")
	case len(files) > 0 && o.in.Workload != "":
		return usagef("trace stats: give trace files or --workload, not both")
	case len(files) == 0:
		files = []string{""}
	}
	for i, f := range files {
		if i > 0 && !o.json {
			fmt.Fprintln(stdout)
		}
		if err := statsOne(o, f, stdout); err != nil {
			return err
		}
	}
	return nil
}

func statsOne(o *traceStatsOptions, path string, stdout io.Writer) error {
	src, name, skipped, closeSrc, err := o.in.open(path)
	if err != nil {
		return err
	}
	defer closeSrc()
	st, err := traces.Stats(src)
	if err != nil {
		return err
	}
	if o.json {
		return json.NewEncoder(stdout).Encode(struct {
			Trace   string `json:"trace"`
			Skipped int    `json:"skipped"`
			traces.TraceStats
			SpanSeconds float64 `json:"span_s"`
		}{name, skipped(), st, st.Span.Seconds()})
	}
	return traces.WriteStats(stdout, name, st, skipped())
}

// traceConvertOptions are the flags of `trace convert`.
type traceConvertOptions struct {
	in  traceInput
	to  string
	out string
}

// newTraceConvertCmd is `tracebench trace convert`.
func newTraceConvertCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "convert FILE --to native -o OUT",
		Short: "Rewrite a trace in the native JSONL format (optionally a window of it)",
		Args:  cobra.ExactArgs(1),
	}, &traceConvertOptions{})
}

// bind declares the flags of `trace convert`.
func (o *traceConvertOptions) bind(fs *pflag.FlagSet) {
	o.in.bindFile(fs)
	o.in.bindArrivals(fs)
	fs.Uint64Var(&o.in.Seed, "seed", 1, "seed of --rate arrivals and of the requests drawn from a servegen directory")
	fs.StringVar(&o.to, "to", traces.FormatNative, "output format (native)")
	bindTraceOut(fs, &o.out)
}

// run rewrites the trace args[0] as a native trace.
func (o *traceConvertOptions) run(cmd *cobra.Command, args []string) error {
	return runTraceConvert(o, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
}

func runTraceConvert(o *traceConvertOptions, path string, stdout, stderr io.Writer) error {
	if o.to != traces.FormatNative {
		return usagef("trace convert --to %q: only native is written", o.to)
	}
	src, name, skipped, closeSrc, err := o.in.open(path)
	if err != nil {
		return err
	}
	defer closeSrc()
	start := time.Now()
	n, err := writeNativeTo(o.out, stdout, src)
	if err != nil {
		return err
	}
	if s := skipped(); n == 0 && s > 0 {
		return fmt.Errorf("every record of %s was malformed: skipped %s, converted none (is --format right?)", path, traces.MalformedText(s))
	}
	fmt.Fprintf(stderr, "converted %d requests of %s to %s in %v", n, name, o.out, time.Since(start).Round(time.Millisecond))
	if s := skipped(); s > 0 {
		fmt.Fprintf(stderr, " (skipped %s)", traces.MalformedText(s))
	}
	fmt.Fprintln(stderr)
	return nil
}
