package traces

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Formats lists the trace formats Open reads, in the order auto-detection
// tries them.
var Formats = []string{FormatNative, FormatAgentic, FormatBailian, FormatRAGPulse, FormatMooncake, FormatVTC, FormatAzure, FormatBurstGPT, FormatShareGPT, FormatServeGen}

// Trace format names for ReadOptions.Format.
const (
	FormatAuto     = "auto"
	FormatNative   = "native"
	FormatMooncake = "mooncake"
	FormatAzure    = "azure"
	FormatBurstGPT = "burstgpt"
	FormatShareGPT = "sharegpt"
	FormatVTC      = "vtc"
	FormatBailian  = "bailian"
	FormatRAGPulse = "ragpulse"
)

// DefaultBlockSize is the tokens per hash id of Mooncake traces (512, the
// FAST'25 release's block size).
const DefaultBlockSize = 512

// ReadOptions configure Open.
type ReadOptions struct {
	// Format is "auto" (the default when empty: detected from the first
	// line), or one of Formats.
	Format string
	// BlockSize is the tokens per hash id of block-id traces; 0 means the
	// format's own: 512 for Mooncake (other public traces in that format
	// use 16 or 64), 16 for Bailian.
	BlockSize int
	// SegmentDir holds the RAGPulse segment files (RAGPulseSegmentFiles);
	// empty means the trace file's directory.
	SegmentDir string
	// Seed seeds formats that generate requests from published
	// distributions (ServeGen); the same seed gives the same requests.
	Seed uint64
	// SkipInvalid skips malformed records (counted by Skipped) instead of
	// failing on the first one.
	SkipInvalid bool
	// Tokenizer counts the tokens of ShareGPT text: "whitespace"
	// (default, as the mock server counts), "character" or "tiktoken".
	Tokenizer string
	// TimeUnit overrides the unit of numeric timestamps ("s", "ms", "us"
	// or "ns"; empty: the format's own, ms for Mooncake, s for VTC and
	// BurstGPT). Formats whose times carry their unit (native arrival_ns,
	// Azure wall-clock times, ShareGPT's synthetic times) refuse it.
	TimeUnit string
	// ThinkTime is the gap between the turns of one ShareGPT conversation
	// (default 10 s), and SessionGap the gap between the starts of
	// successive conversations (default 1 s): ShareGPT has no times.
	ThinkTime, SessionGap time.Duration
	// Windows is how a fall of the arrival time is read: WindowsOne (the
	// default when empty) refuses it, WindowsSequential starts a new time
	// window there, replayed after the previous one (see WindowModes).
	Windows string
	// Agentic shapes agentic coding sessions (scale, cap, start layout,
	// response-time estimate); other formats refuse it set.
	Agentic AgenticOptions
}

// recordReader decodes the records of one format. Errors for one record
// are *ParseError with Line set; other errors end the read.
type recordReader interface {
	next() (Request, error)
}

// FileSource reads a trace file record by record (streaming: the memory
// held does not grow with the file). It implements Source and io.Closer.
type FileSource struct {
	path    string
	format  string
	file    io.Closer
	rd      recordReader
	skip    bool
	skipped int
	clock   windowClock
	timeKey string
	err     error
	// origin is the first record's arrival in the file's own time;
	// started reports it is known. Every Request is rebased to it.
	origin  time.Duration
	started bool
	// pending holds the first Request when Origin read it ahead.
	pending *Request
}

// Open opens the trace at path ("-" reads standard input) in
// opt.Format, detecting it from the first line when "auto".
func Open(path string, opt ReadOptions) (*FileSource, error) {
	format := strings.ToLower(strings.TrimSpace(opt.Format))
	if format == FormatServeGen || (format == "" || format == FormatAuto) && path != "-" && isServeGenPath(path) {
		if _, err := checkWindows(FormatServeGen, opt.Windows); err != nil {
			return nil, fmt.Errorf("read trace %s: %w", path, err)
		}
		if err := checkAgenticOptions(FormatServeGen, opt.Agentic); err != nil {
			return nil, fmt.Errorf("read trace %s: %w", path, err)
		}
		return openServeGen(path, opt)
	}
	if path != "-" && (format == FormatAgentic && isDir(path) || (format == "" || format == FormatAuto) && isAgenticDir(path)) {
		return openAgenticDir(path, opt)
	}
	var f *os.File
	if path == "-" {
		f = os.Stdin
	} else {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, fmt.Errorf("open trace: %w", err)
		}
	}
	s, err := NewReader(f, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.file = f
	return s, nil
}

// NewReader reads a trace from r; name stands for the file in errors.
// Close does not close r.
func NewReader(r io.Reader, name string, opt ReadOptions) (*FileSource, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	if head, _ := br.Peek(len(bom)); string(head) == bom {
		br.Discard(len(bom))
	}
	format := strings.ToLower(strings.TrimSpace(opt.Format))
	if format == "" || format == FormatAuto {
		var err error
		if format, err = detect(br); err != nil {
			return nil, fmt.Errorf("read trace %s: %w", name, err)
		}
	} else if err := checkForcedFormat(br, format); err != nil {
		return nil, fmt.Errorf("read trace %s: %w", name, err)
	}
	if opt.SegmentDir == "" && name != "-" {
		opt.SegmentDir = filepath.Dir(name)
	}
	sequential, err := checkWindows(format, opt.Windows)
	if err != nil {
		return nil, fmt.Errorf("read trace %s: %w", name, err)
	}
	if err := checkAgenticOptions(format, opt.Agentic); err != nil {
		return nil, fmt.Errorf("read trace %s: %w", name, err)
	}
	rd, timeKey, err := newRecordReader(format, br, opt)
	if err != nil {
		return nil, fmt.Errorf("read trace %s: %w", name, err)
	}
	return &FileSource{path: name, format: format, rd: rd, skip: opt.SkipInvalid, timeKey: timeKey,
		clock: windowClock{sequential: sequential}}, nil
}

// Format returns the trace's format name (as detected when "auto").
func (s *FileSource) Format() string { return s.format }

// Skipped returns how many malformed records were skipped so far (with
// SkipInvalid).
func (s *FileSource) Skipped() int { return s.skipped }

// Close closes the file.
func (s *FileSource) Close() error {
	if s.file == nil || s.file == os.Stdin {
		return nil
	}
	return s.file.Close()
}

// Next implements Source. A malformed record is an error naming file,
// line and field, unless SkipInvalid. Arrival times must not decrease.
// Arrivals are relative to the first record (the time origin, see
// Origin), whatever offset the file's clock starts at.
func (s *FileSource) Next() (Request, error) {
	if r := s.pending; r != nil {
		s.pending = nil
		return *r, nil
	}
	r, err := s.nextRaw()
	if err != nil {
		return Request{}, err
	}
	if !s.started {
		s.origin, s.started = r.Arrival, true
	}
	r.Arrival -= s.origin
	return r, nil
}

// Origin returns the first record's arrival in the file's own time (the
// offset every arrival is rebased by), reading that record ahead when
// Next was not called yet. ok is false when the trace has no valid
// record (Next then returns why). For Azure traces the origin is the
// first row's wall-clock time as an offset from the Unix epoch.
func (s *FileSource) Origin() (origin time.Duration, ok bool) {
	if !s.started && s.pending == nil && s.err == nil {
		if r, err := s.Next(); err == nil {
			s.pending = &r
		}
	}
	return s.origin, s.started
}

// OriginText describes a non-zero time origin for run headers and trace
// statistics: "starts at 1178.625 s" (the file's own clock), or for
// Azure "starts 2023-11-16 18:17:03.97996 UTC"; "" when the file starts
// at 0 or has no valid record.
func (s *FileSource) OriginText() string {
	o, ok := s.Origin()
	switch {
	case !ok || o == 0:
		return ""
	case s.format == FormatAzure:
		return "starts " + time.Unix(0, int64(o)).UTC().Format("2006-01-02 15:04:05.999999 UTC")
	}
	return "starts at " + strconv.FormatFloat(o.Seconds(), 'f', -1, 64) + " s"
}

// nextRaw returns the next valid record in the file's own time.
func (s *FileSource) nextRaw() (Request, error) {
	for s.err == nil {
		r, err := s.rd.next()
		if err == nil {
			var placed time.Duration
			if placed, err = s.clock.place(r.Arrival); err != nil {
				err = &ParseError{Line: lineOf(s.rd), Field: s.timeKey, Err: err}
			}
			r.Arrival = placed
		}
		if err == nil {
			return r, nil
		}
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = s.path
			if s.skip {
				s.skipped++
				continue
			}
		} else if err != io.EOF {
			err = fmt.Errorf("read trace %s: %w", s.path, err)
		}
		s.err = err
	}
	return Request{}, s.err
}

// lineOf returns the line number a line-based reader is at.
func lineOf(rd recordReader) int {
	if l, ok := rd.(interface{ lineNo() int }); ok {
		return l.lineNo()
	}
	return 0
}

// newRecordReader returns the reader of format and the name of its time
// field.
func newRecordReader(format string, br *bufio.Reader, opt ReadOptions) (recordReader, string, error) {
	bs := opt.BlockSize
	if bs == 0 {
		bs = DefaultBlockSize
		if format == FormatBailian {
			bs = BailianBlockSize
		}
	}
	if bs < 0 || bs > MaxTokens {
		return nil, "", fmt.Errorf("block size %d: want 1 to %d", bs, MaxTokens)
	}
	def, numeric := defaultUnits[format]
	if opt.TimeUnit != "" && !numeric && slices.Contains(Formats, format) {
		return nil, "", fmt.Errorf("ReadOptions.TimeUnit %s: the %s format's times have a fixed unit (ReadOptions.TimeUnit applies to %s)",
			opt.TimeUnit, format, strings.Join(numericTimeFormats(), ", "))
	}
	unit, err := parseTimeUnit(opt.TimeUnit, def)
	if err != nil {
		return nil, "", err
	}
	switch format {
	case FormatNative:
		return newJSONL(br, newNativeDecoder().decode), "arrival_ns", nil
	case FormatAgentic:
		rd, err := newAgenticStream(br, opt)
		return rd, "t", err
	case FormatMooncake:
		if opt.TimeUnit == "" {
			if err := checkMooncakeUnit(br); err != nil {
				return nil, "", err
			}
		}
		return newMooncake(br, bs, unit), "timestamp", nil
	case FormatVTC:
		return newJSONL(br, vtcDecoder(unit)), "timestamp_s", nil
	case FormatBailian:
		return newJSONL(br, bailianDecoder(bs, unit)), "timestamp", nil
	case FormatRAGPulse:
		lengths, err := LoadRAGPulseSegments(opt.SegmentDir)
		if err != nil {
			return nil, "", err
		}
		return newJSONL(br, ragPulseDecoder(lengths, unit)), "timestamp", nil
	case FormatAzure:
		return newCSV(br, azureColumns()), "TIMESTAMP", nil
	case FormatBurstGPT:
		return newCSV(br, burstColumns(unit)), "Timestamp", nil
	case FormatShareGPT:
		rd, err := newShareGPT(br, opt)
		return rd, "", err
	case FormatServeGen:
		return nil, "", fmt.Errorf("the servegen format reads a model directory of chunk-N-trace.csv and chunk-N-dataset.json files, or one chunk-N-trace.csv, not a stream")
	}
	return nil, "", fmt.Errorf("unknown format %q (known: auto, %s)", format, strings.Join(Formats, ", "))
}
