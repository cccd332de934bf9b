package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Source is the paced, sharded Request source of a Run.
type Source struct {
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
func (s *Source) Next() (traces.Request, error) {
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
func (s *Source) allSkipped(trace string) error {
	if n := s.skipped(); n > 0 && s.yielded == 0 {
		return fmt.Errorf("every record of %s was malformed: skipped %s, replayed none (is Spec.Workload.Format right?)",
			trace, traces.MalformedText(n))
	}
	return nil
}

// OpenSource builds the paced, sharded Request source and its identity.
func OpenSource(wf Workload) (*Source, error) {
	ao := traces.ArrivalOptions{TimeScale: wf.TimeScale, Rate: wf.Rate, Process: wf.Arrival, CV: wf.CV,
		MaxRequests: wf.MaxRequests, Duration: wf.Duration, Start: wf.Start, Seed: wf.Seed}
	if wf.Sessions.closed() {
		ao.Duration = 0 // closed-loop turns stop at run time (Sessions.StopAt), not trace time
	}
	if err := CheckArrivals(ao); err != nil {
		return nil, err
	}
	if err := wf.ShareGPT.Validate(); err != nil {
		return nil, err
	}
	if err := wf.Sessions.check(); err != nil {
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
	s.Source = results.ShardSource(traces.WithArrivals(raw, ao), i, n)
	return s, nil
}

// openTrace opens the --trace file: its Requests, unpaced, and the
// source naming it that closes it and counts the records it skipped.
func openTrace(wf Workload) (*Source, traces.Source, error) {
	fs, err := traces.Open(wf.Trace, wf.ShareGPT.ReadOptions(traces.ReadOptions{Format: wf.Format,
		BlockSize: wf.BlockSize, TimeUnit: wf.TimeUnit, SkipInvalid: wf.SkipInvalid, Seed: wf.Seed, Windows: wf.Windows}))
	if err != nil {
		return nil, nil, err
	}
	if err := wf.ShareGPT.Check(fs.Format()); err != nil {
		fs.Close()
		return nil, nil, err
	}
	s := &Source{ident: TraceIdent(wf.Trace, fs, wf.Seed), close: func() { fs.Close() },
		skipped: fs.Skipped}
	return s, fs, nil
}

// openWorkload builds the --workload generator: its Requests, unpaced,
// and the source naming it (see workloadIdent).
func openWorkload(wf Workload) (*Source, traces.Source, error) {
	if err := wf.ShareGPT.Check(""); err != nil {
		return nil, nil, err
	}
	if wf.TimeUnit != "" {
		return nil, nil, fieldf("Spec.Workload.TimeUnit", "Spec.Workload.TimeUnit applies to a Spec.Workload.Trace file, not to a generated workload")
	}
	if wf.Windows != "" {
		return nil, nil, fieldf("Spec.Workload.Windows", "Spec.Workload.Windows applies to a Spec.Workload.Trace file, not to a generated workload")
	}
	raw, err := traces.NewWorkload(wf.Workload, wf.WorkloadArgs, wf.Seed)
	if err != nil {
		return nil, nil, fieldf("Spec.Workload.Workload", "Spec.Workload.Workload: %v", err)
	}
	s := &Source{ident: WorkloadIdent(wf.Workload, wf.WorkloadArgs, wf.Seed), close: func() {},
		skipped: func() int { return 0 }}
	return s, raw, nil
}

// WorkloadIdent names a generated workload in run headers and reports:
// "workload NAME k=v... seed N" with the parameters given (the last
// of each name), sorted by name, and none when none were given.
func WorkloadIdent(name string, params traces.Params, seed uint64) string {
	parts := append([]string{"workload", name}, params.SortedStrings()...)
	return strings.Join(append(parts, "seed", strconv.FormatUint(seed, 10)), " ")
}

// TraceIdent names a trace file in run headers and statistics: "PATH
// (FORMAT)", with the file's own start time when it is not 0
// ("PATH (mooncake, starts at 1178.625 s)"): arrivals, --start and
// --duration count from the first record. A ServeGen model directory,
// whose requests are drawn from distributions, names its seed instead
// ("PATH (servegen, seed 1)").
func TraceIdent(path string, fs *traces.FileSource, seed uint64) string {
	if fs.Format() == traces.FormatServeGen {
		return fmt.Sprintf("%s (%s, seed %d)", path, fs.Format(), seed)
	}
	if o := fs.OriginText(); o != "" {
		return fmt.Sprintf("%s (%s, %s)", path, fs.Format(), o)
	}
	return fmt.Sprintf("%s (%s)", path, fs.Format())
}

// Close releases the trace file.
func (s *Source) Close() { s.close() }

// Ident names the trace or workload as the results header does.
func (s *Source) Ident() string { return s.ident }
