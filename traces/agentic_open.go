package traces

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// agenticReader yields the Requests of sessions read whole, in arrival
// order (ties in the order they were built, predecessors first). A
// stream is read on the first call to next, so its errors reach the
// FileSource like any record's.
type agenticReader struct {
	load func() ([]Request, error)
	reqs []Request
	pos  int
}

func (a *agenticReader) next() (Request, error) {
	if a.load != nil {
		load := a.load
		a.load = nil
		var err error
		if a.reqs, err = load(); err != nil {
			return Request{}, err
		}
	}
	if a.pos >= len(a.reqs) {
		return Request{}, io.EOF
	}
	a.pos++
	return a.reqs[a.pos-1], nil
}

// newAgenticStream reads one session file from br, starting at 0.
func newAgenticStream(br *bufio.Reader, opt ReadOptions) (*agenticReader, error) {
	ao, err := opt.Agentic.resolve()
	if err != nil {
		return nil, err
	}
	bs := agenticBlockSize(opt)
	return &agenticReader{load: func() ([]Request, error) {
		f, err := readAgenticFile(br)
		if err != nil {
			return nil, err
		}
		return buildAgentic(f, 0, bs, ao)
	}}, nil
}

// agenticBlockSize is the block size of session files that state none:
// --block-size, else 64.
func agenticBlockSize(opt ReadOptions) int {
	if opt.BlockSize > 0 {
		return opt.BlockSize
	}
	return agenticDefaultBlockSize
}

// looksAgentic reports whether the start of a file is an agentic session
// object.
func looksAgentic(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n"+bom)
	has := func(k string) bool { return bytes.Contains(head, []byte(`"`+k+`"`)) }
	return len(head) > 0 && head[0] == '{' && has("requests") &&
		(has("hash_id_scope") || has("block_size") || has("hash_ids"))
}

// agenticFiles returns the session files of a directory: every *.json,
// in name order.
func agenticFiles(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	slices.Sort(files)
	return files
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// isAgenticDir reports whether path is a directory whose first *.json
// file is an agentic session.
func isAgenticDir(path string) bool {
	if !isDir(path) {
		return false
	}
	files := agenticFiles(path)
	if len(files) == 0 {
		return false
	}
	f, err := os.Open(files[0])
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	return looksAgentic(head[:n])
}

// openAgenticDir reads every session file of dir: file k (in name
// order) starts k × Stagger into the trace. A malformed file is an error
// naming it, or with SkipInvalid is skipped and counted.
func openAgenticDir(dir string, opt ReadOptions) (*FileSource, error) {
	if _, err := checkWindows(FormatAgentic, opt.Windows); err != nil {
		return nil, fmt.Errorf("read trace %s: %w", dir, err)
	}
	if opt.TimeUnit != "" {
		return nil, fmt.Errorf("read trace %s: ReadOptions.TimeUnit %s: the %s format's times have a fixed unit, seconds (ReadOptions.TimeUnit applies to %s)",
			dir, opt.TimeUnit, FormatAgentic, strings.Join(numericTimeFormats(), ", "))
	}
	ao, err := opt.Agentic.resolve()
	if err != nil {
		return nil, fmt.Errorf("read trace %s: %w", dir, err)
	}
	files := agenticFiles(dir)
	if len(files) == 0 {
		return nil, fmt.Errorf("read trace %s: no *.json session files in the directory", dir)
	}
	var all []Request
	owner := map[string]string{} // session → the file that holds it
	skipped := 0
	for k, name := range files {
		reqs, err := loadAgenticFile(name, float64(k)*ao.Stagger.Seconds(), agenticBlockSize(opt), ao)
		if err == nil {
			err = claimSessions(reqs, name, owner)
		}
		var pe *ParseError
		switch {
		case err == nil:
			all = append(all, reqs...)
		case errors.As(err, &pe) && opt.SkipInvalid:
			skipped++
		case errors.As(err, &pe):
			return nil, err
		default:
			return nil, fmt.Errorf("read trace %s: %w", name, err)
		}
	}
	slices.SortStableFunc(all, func(a, b Request) int { return cmp.Compare(a.Arrival, b.Arrival) })
	return &FileSource{path: dir, format: FormatAgentic, rd: &agenticReader{reqs: all}, skip: opt.SkipInvalid,
		timeKey: "t", skipped: skipped}, nil
}

// loadAgenticFile reads and builds one session file; its errors name it.
func loadAgenticFile(name string, start float64, bs int, ao AgenticOptions) ([]Request, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sf, err := readAgenticFile(f)
	var reqs []Request
	if err == nil {
		reqs, err = buildAgentic(sf, start, bs, ao)
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.File = name
	}
	return reqs, err
}

// claimSessions records the sessions of one file's Requests, refusing one
// another file already holds.
func claimSessions(reqs []Request, name string, owner map[string]string) error {
	for i := range reqs {
		s := reqs[i].Session
		if o, ok := owner[s]; ok && o != name {
			return &ParseError{File: name, Entry: "session " + s, Field: "id", Err: fmt.Errorf("the session of %s too: session ids must differ between files", o)}
		}
	}
	for i := range reqs {
		owner[reqs[i].Session] = name
	}
	return nil
}
