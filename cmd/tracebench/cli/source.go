package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/traces"
)

// source is the paced, sharded Request source of a Run.
type source struct {
	traces.Source
	// ident identifies the trace or workload in the run header.
	ident string
	// close releases the trace file.
	close func()
	// skipped counts malformed records skipped (--skip-invalid).
	skipped func() int
	// yielded counts the Requests Next returned.
	yielded int
	// lengths, when set, counts the Requests longer than the in-process
	// engines accept.
	lengths *lengthCheck
}

// Next implements traces.Source, counting the Requests it yields.
func (s *source) Next() (traces.Request, error) {
	r, err := s.Source.Next()
	if err == nil {
		s.yielded++
		if s.lengths != nil {
			s.lengths.observe(&r)
		}
	}
	return r, err
}

// allSkipped is an error when the trace's records were all malformed
// and skipped (--skip-invalid), so nothing was replayed; nil otherwise.
func (s *source) allSkipped(trace string) error {
	if n := s.skipped(); n > 0 && s.yielded == 0 {
		return fmt.Errorf("every record of %s was malformed: skipped %s, replayed none (is --format right?)",
			trace, traces.MalformedText(n))
	}
	return nil
}

// openSource builds the paced, sharded Request source and its identity.
func openSource(wf workloadFlags) (*source, error) {
	ao := traces.ArrivalOptions{TimeScale: wf.TimeScale, Rate: wf.Rate, Process: wf.Arrival, CV: wf.CV,
		MaxRequests: wf.MaxRequests, Duration: wf.Duration, Start: wf.Start, Seed: wf.Seed}
	if err := checkArrivals(ao); err != nil {
		return nil, err
	}
	if err := wf.ShareGPT.validate(); err != nil {
		return nil, err
	}
	i, n, err := parseShard(wf.Shard)
	if err != nil {
		return nil, err
	}
	open := openWorkload
	if wf.Trace != "" {
		open = openTrace
	}
	s, raw, err := open(wf)
	if err != nil {
		return nil, err
	}
	// Select and time the whole Run first (window, --max-requests,
	// --rate), then keep this shard's share: the shards together replay
	// exactly the unsharded Run, each Request at its unsharded time.
	s.Source = replay.ShardSource(traces.WithArrivals(raw, ao), i, n)
	return s, nil
}

// openTrace opens the --trace file: its Requests, unpaced, and the
// source naming it that closes it and counts the records it skipped.
func openTrace(wf workloadFlags) (*source, traces.Source, error) {
	fs, err := traces.Open(wf.Trace, wf.ShareGPT.readOptions(traces.ReadOptions{Format: wf.Format,
		BlockSize: wf.BlockSize, TimeUnit: wf.TimeUnit, SkipInvalid: wf.SkipInvalid, Seed: wf.Seed}))
	if err != nil {
		return nil, nil, err
	}
	if err := wf.ShareGPT.check(fs.Format()); err != nil {
		fs.Close()
		return nil, nil, err
	}
	s := &source{ident: traceIdent(wf.Trace, fs, wf.Seed), close: func() { fs.Close() },
		skipped: fs.Skipped}
	return s, fs, nil
}

// openWorkload builds the --workload generator: its Requests, unpaced,
// and the source naming it (see workloadIdent).
func openWorkload(wf workloadFlags) (*source, traces.Source, error) {
	if err := wf.ShareGPT.check(""); err != nil {
		return nil, nil, err
	}
	if wf.TimeUnit != "" {
		return nil, nil, usagef("--time-unit applies to a --trace file, not to a generated workload")
	}
	params, err := parseKV("workload-param", wf.WorkloadArgs)
	if err != nil {
		return nil, nil, err
	}
	raw, err := traces.NewWorkload(wf.Workload, params, wf.Seed)
	if err != nil {
		return nil, nil, usagef("--workload: %v", err)
	}
	s := &source{ident: workloadIdent(wf.Workload, params, wf.Seed), close: func() {},
		skipped: func() int { return 0 }}
	return s, raw, nil
}

// workloadIdent names a generated workload in run headers and reports:
// "workload NAME k=v... seed N" with the parameters given, sorted by
// key, and none when none were given.
func workloadIdent(name string, params map[string]string, seed uint64) string {
	parts := []string{"workload", name}
	for _, k := range sortedKeys(params) {
		parts = append(parts, k+"="+params[k])
	}
	return strings.Join(append(parts, "seed", strconv.FormatUint(seed, 10)), " ")
}

// traceIdent names a trace file in run headers and statistics: "PATH
// (FORMAT)", with the file's own start time when it is not 0
// ("PATH (mooncake, starts at 1178.625 s)"): arrivals, --start and
// --duration count from the first record. A ServeGen model directory,
// whose requests are drawn from distributions, names its seed instead
// ("PATH (servegen, seed 1)").
func traceIdent(path string, fs *traces.FileSource, seed uint64) string {
	if fs.Format() == traces.FormatServeGen {
		return fmt.Sprintf("%s (%s, seed %d)", path, fs.Format(), seed)
	}
	if o := fs.OriginText(); o != "" {
		return fmt.Sprintf("%s (%s, %s)", path, fs.Format(), o)
	}
	return fmt.Sprintf("%s (%s)", path, fs.Format())
}

// timeUnitHelp documents --time-unit.
const timeUnitHelp = "unit of the trace's numeric timestamps: s|ms|us|ns (default: the format's own, ms for mooncake, s for vtc and burstgpt)"

// blockSizeHelp documents --block-size.
const blockSizeHelp = "tokens per block id in block-id traces (0 = the format's own: mooncake 512, bailian 16)"
