package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"
)

// Version is the tool version written into results headers.
var Version = "0.1.0"

// Header is the first line of a results file.
type Header struct {
	// Version is the tracebench version that wrote the file.
	Version string `json:"version"`
	// Format is the header's layout, HeaderFormat (Create sets it; 0 in
	// files written before the field existed, which have the same
	// layout).
	Format int `json:"format,omitempty"`
	// Started is the wall-clock start of the Run (RFC 3339).
	Started time.Time `json:"started"`
	// Policy is the Run's name: router, plus "+queue" when not fcfs.
	Policy string `json:"policy"`
	// Router and Queue are the policy names; RouterParams and QueueParams
	// their resolved parameters.
	Router       string            `json:"router"`
	RouterParams map[string]string `json:"router_params,omitempty"`
	Queue        string            `json:"queue"`
	QueueParams  map[string]string `json:"queue_params,omitempty"`
	// Seed seeds every random choice of the Run.
	Seed uint64 `json:"seed"`
	// Trace identifies the workload: a file path and format, or a
	// generator name with its parameters.
	Trace string `json:"trace"`
	// Mode is ModeTarget, ModeMock or ModeSim.
	Mode Mode `json:"mode"`
	// Backends lists the Backend URLs (or sim names) by Index.
	Backends []string `json:"backends"`
	// Roles are the Backends' prefill/decode roles by Index (RolePrefill,
	// RoleDecode, RoleBoth) of a disaggregated Run; empty otherwise.
	Roles []string `json:"roles,omitempty"`
	// Shard is "i/n" when the Run replayed one shard.
	Shard string `json:"shard,omitempty"`
	// Shards is the number of shard results files merged into this one
	// (0: not merged). Each shard ran its own Router and Queue state, like
	// separate gateway replicas.
	Shards int `json:"shards,omitempty"`
	// Config is the full run configuration, credentials removed.
	Config RunConfig `json:"config,omitzero"`
}

// Stop is the last line of a complete results file.
type Stop struct {
	// Reason is why the Run ended (see StopReason): StopDone (also when
	// its duration or request limit ended it), StopInterrupted,
	// StopErrorLimit, StopAsMeasured, StopError's "error: ..." or, for a
	// file merged from shards, the first shard's reason other than
	// StopDone (StopIncomplete when one was killed).
	Reason StopReason `json:"reason"`
	// Elapsed is the Run's length.
	Elapsed time.Duration `json:"elapsed"`
	// Extra carries run-level figures measured outside Results (e.g. the
	// mock's step lateness, scraped server counters).
	Extra map[string]float64 `json:"extra,omitempty"`
	// Notes are run-level diagnoses in words, each shown once in the
	// report (for example why a backend's KV events gave the router
	// nothing).
	Notes []string `json:"notes,omitempty"`
}

// Event is a time-stamped record of policy or server state (multi-bin
// controller, VTC counters, scraped gauges) for plots.
type Event struct {
	// At is the offset from the start of the Run.
	At time.Duration `json:"at"`
	// Source names what emitted it ("multi-bin", "vtc", "scrape:b0", ...).
	Source string `json:"source"`
	// Values are the named figures.
	Values map[string]float64 `json:"values"`
}

// line is the envelope of one results-file line; exactly one field is set.
type line struct {
	Header *Header `json:"header,omitempty"`
	Result *Result `json:"result,omitempty"`
	Event  *Event  `json:"event,omitempty"`
	Stop   *Stop   `json:"stop,omitempty"`
}

// Writer appends lines to a results file, flushing each so a killed Run
// loses at most the line being written. Safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	err error
}

// Create creates path and writes h as its first line, its Format set to
// HeaderFormat.
func Create(path string, h Header) (*Writer, error) {
	h.Format = HeaderFormat
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create results file: %w", err)
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	return w, w.write(line{Header: &h})
}

// WriteResult appends one Result.
func (w *Writer) WriteResult(r *Result) error { return w.write(line{Result: r}) }

// WriteEvent appends one Event.
func (w *Writer) WriteEvent(e *Event) error { return w.write(line{Event: e}) }

// Close writes the stop line and closes the file.
func (w *Writer) Close(s Stop) error {
	err := w.write(line{Stop: &s})
	w.mu.Lock()
	defer w.mu.Unlock()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (w *Writer) write(l line) error {
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("encode results line: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.w.Write(b)
	w.w.WriteByte('\n')
	if err := w.w.Flush(); err != nil {
		w.err = fmt.Errorf("write results file %s: %w", w.f.Name(), err)
	}
	return w.err
}

// Reader streams a results file. It tolerates a truncated last line (a
// killed Run) and a missing stop line.
type Reader struct {
	name   string
	sc     *bufio.Scanner
	lineNo int
	// Header is the run header (read by Open).
	Header Header
	// Stop is the stop line once Next has returned io.EOF (nil when the
	// file has none: the Run was killed).
	Stop *Stop
	// Truncated is set when the last line was cut off.
	Truncated bool
}

// NewReader reads the header from r; name is used in errors.
func NewReader(name string, r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	rd := &Reader{name: name, sc: sc}
	l, err := rd.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("results file %s: empty", name)
		}
		return nil, err
	}
	if l.Header == nil {
		return nil, fmt.Errorf("results file %s line 1: first line is not a run header", name)
	}
	rd.Header = *l.Header
	if err := rd.Header.checkFormat(); err != nil {
		return nil, fmt.Errorf("results file %s line 1: %w", name, err)
	}
	return rd, nil
}

// Next returns the next Result or Event (one of them non-nil), or io.EOF.
func (rd *Reader) Next() (*Result, *Event, error) {
	for {
		l, err := rd.next()
		if err != nil {
			return nil, nil, err
		}
		switch {
		case l.Result != nil:
			return l.Result, nil, nil
		case l.Event != nil:
			return nil, l.Event, nil
		case l.Stop != nil:
			rd.Stop = l.Stop
		}
	}
}

func (rd *Reader) next() (line, error) {
	if !rd.sc.Scan() {
		if err := rd.sc.Err(); err != nil {
			return line{}, fmt.Errorf("results file %s line %d: %w", rd.name, rd.lineNo+1, err)
		}
		return line{}, io.EOF
	}
	rd.lineNo++
	var l line
	b := bytes.TrimSpace(rd.sc.Bytes())
	if err := json.Unmarshal(b, &l); err != nil {
		bad := rd.lineNo
		if rd.isLast() {
			rd.Truncated = true
			return line{}, io.EOF
		}
		return line{}, fmt.Errorf("results file %s line %d: %w", rd.name, bad, fieldError("", err))
	}
	return l, nil
}

// isLast reports whether the line just read was the last one.
func (rd *Reader) isLast() bool {
	if rd.sc.Scan() {
		rd.lineNo++
		return false
	}
	return true
}

// Figure is the stop line's Extra figure k, NaN when s is nil or the run
// did not record it.
func (s *Stop) Figure(k string) float64 {
	if s == nil {
		return math.NaN()
	}
	if v, ok := s.Extra[k]; ok {
		return v
	}
	return math.NaN()
}
