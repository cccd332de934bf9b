package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxLineBytes bounds one trace line (64 MiB), so a file without line
// breaks cannot exhaust memory.
const maxLineBytes = 64 << 20

// lineReader reads lines one at a time with a reused buffer: the memory
// held is one line, whatever the file's length.
type lineReader struct {
	br   *bufio.Reader
	line int    // 1-based number of the line last returned
	buf  []byte // holds a line longer than br's buffer
}

// newLineReader reads lines from br.
func newLineReader(br *bufio.Reader) *lineReader { return &lineReader{br: br} }

// readLine returns the next line without its line ending. The slice is
// valid until the next call. It returns io.EOF after the last line.
func (l *lineReader) readLine() ([]byte, error) {
	frag, err := l.br.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(frag) > 0) {
		l.line++
		return trimEOL(frag), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	l.buf = append(l.buf[:0], frag...)
	for {
		frag, err = l.br.ReadSlice('\n')
		l.buf = append(l.buf, frag...)
		if len(l.buf) > maxLineBytes {
			return nil, fmt.Errorf("line %d longer than %d bytes", l.line+1, maxLineBytes)
		}
		switch {
		case err == nil || errors.Is(err, io.EOF):
			l.line++
			return trimEOL(l.buf), nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
}

// trimEOL drops a trailing "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// isBlank reports whether b holds only white space.
func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// bom is the UTF-8 byte-order mark some editors and exporters put first.
const bom = "\ufeff"
