package traces

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// LoadRAGPulseSegments reads the token length of every hash id from the
// RAGPulse segment files in dir (RAGPulseSegmentFiles; a missing file is
// skipped, but at least one must exist). A malformed line is an error
// naming the file, line and field.
func LoadRAGPulseSegments(dir string) (map[uint64]int, error) {
	lengths := map[uint64]int{}
	found := 0
	for _, name := range RAGPulseSegmentFiles {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("ragpulse segments: %w", err)
		}
		found++
		err = readSegmentFile(f, lengths)
		f.Close()
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.File = path
				return nil, pe
			}
			return nil, fmt.Errorf("ragpulse segments %s: %w", path, err)
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("ragpulse: no segment files (%v) in %s: the trace's hash_ids need their token lengths; keep them next to the trace",
			RAGPulseSegmentFiles, dir)
	}
	return lengths, nil
}

// readSegmentFile adds the id → token_length lines of r to lengths.
func readSegmentFile(r io.Reader, lengths map[uint64]int) error {
	lr := newLineReader(bufio.NewReader(r))
	for {
		line, err := lr.readLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if isBlank(line) {
			continue
		}
		id, n, err := decodeSegment(line)
		if err != nil {
			return atLine(err, lr.line)
		}
		lengths[id] = n
	}
}

// decodeSegment reads {"<kind>_id": N, "token_length": L}.
func decodeSegment(line []byte) (uint64, int, error) {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil {
		return 0, 0, jsonFieldErr(err)
	}
	raw, ok := rec["token_length"]
	if !ok || len(rec) != 2 {
		return 0, 0, fieldErr("token_length", "want one id field and token_length, got %d fields", len(rec))
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, 0, fieldErr("token_length", "want int, got %s", raw)
	}
	if err := tokenCount("token_length", n); err != nil {
		return 0, 0, err
	}
	for k, v := range rec {
		if k == "token_length" {
			continue
		}
		var id uint64
		if err := json.Unmarshal(v, &id); err != nil {
			return 0, 0, fieldErr(k, "want a non-negative integer id, got %s", v)
		}
		return id, n, nil
	}
	return 0, 0, fieldErr("token_length", "no id field")
}
