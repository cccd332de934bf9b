package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxSSEEvent bounds the data of one server-sent event (1 MiB); a larger
// event is a bad payload, so a misbehaving server cannot grow memory.
const maxSSEEvent = 1 << 20

// errSSETruncated reports a stream that ended inside a line or an event.
var errSSETruncated = errors.New("stream ended inside an event")

// errSSETooLarge reports an event larger than maxSSEEvent.
var errSSETooLarge = fmt.Errorf("event larger than %d bytes", maxSSEEvent)

// sseReader splits a text/event-stream body into events as the HTML
// server-sent events specification defines them: lines end with "\n" or
// "\r\n" and may arrive split across reads; "data:" lines (one optional
// space after the colon) accumulate, joined by "\n", until a blank line
// dispatches the event; "event:" sets its type; comments (":" lines),
// "id:", "retry:" and unknown fields are ignored; an event without data
// (a keep-alive) is not dispatched. Memory is bounded by maxSSEEvent.
type sseReader struct {
	br      *bufio.Reader
	data    []byte
	typ     []byte
	hasData bool
	long    []byte // a line longer than the bufio buffer, being assembled
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 4<<10)}
}

// Next returns the type and data of the next event. The slices are valid
// until the next call. At the end of the stream it returns io.EOF after a
// clean end, errSSETruncated when the stream stopped inside a line or an
// event, or the read error itself (a cut connection, a timeout).
func (s *sseReader) Next() (typ, data []byte, err error) {
	s.data, s.typ, s.hasData = s.data[:0], s.typ[:0], false
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && (len(line) > 0 || s.hasData || len(s.typ) > 0) {
				return nil, nil, errSSETruncated
			}
			return nil, nil, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.typ, s.data, nil
			}
			s.typ = s.typ[:0]
			continue
		}
		if err := s.field(line); err != nil {
			return nil, nil, err
		}
	}
}

// field applies one non-blank line to the current event.
func (s *sseReader) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment or keep-alive
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(s.data)+len(value)+1 > maxSSEEvent {
			return errSSETooLarge
		}
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		s.hasData = true
	case "event":
		s.typ = append(s.typ[:0], value...)
	}
	return nil
}

// readLine returns the next line without its terminator. At the end of
// the stream it returns the unterminated remainder (possibly empty) with
// the read error.
func (s *sseReader) readLine() ([]byte, error) {
	s.long = s.long[:0]
	for {
		frag, err := s.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(s.long)+len(frag) > maxSSEEvent {
				return nil, errSSETooLarge
			}
			s.long = append(s.long, frag...)
			continue
		}
		line := frag
		if len(s.long) > 0 {
			s.long = append(s.long, frag...)
			line = s.long
		}
		if err != nil {
			return line, err
		}
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		return line, nil
	}
}
