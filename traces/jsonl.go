package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// jsonlReader reads one JSON object per line, skipping blank lines.
type jsonlReader struct {
	lr     *lineReader
	decode func(line []byte, lineNo int, r *Request) error
}

func newJSONL(br *bufio.Reader, decode func([]byte, int, *Request) error) *jsonlReader {
	return &jsonlReader{lr: newLineReader(br), decode: decode}
}

func (j *jsonlReader) lineNo() int { return j.lr.line }

func (j *jsonlReader) next() (Request, error) {
	for {
		line, err := j.lr.readLine()
		if err != nil {
			return Request{}, err
		}
		if isBlank(line) {
			continue
		}
		var r Request
		if err := j.decode(line, j.lr.line, &r); err != nil {
			return Request{}, atLine(err, j.lr.line)
		}
		return r, nil
	}
}

// atLine sets the line of a ParseError, or wraps another error as one.
func atLine(err error, line int) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.Line = line
		return pe
	}
	return &ParseError{Line: line, Err: err}
}

// detect guesses the format from the start of the stream without
// consuming it: a JSON array is ShareGPT; a JSON object is told apart by
// its keys; a CSV header by its column names.
func detect(br *bufio.Reader) (string, error) {
	head, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	head = bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(head) == 0 {
		return "", fmt.Errorf("empty trace: cannot detect its format (use ReadOptions.Format)")
	}
	first := head
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		first = head[:i]
	}
	has := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
	switch {
	case head[0] == '[':
		return FormatShareGPT, nil
	case head[0] == '{' && (has("arrival_ns") || has("output_tokens")):
		return FormatNative, nil
	case looksAgentic(head):
		return FormatAgentic, nil
	case head[0] == '{' && has("chat_id") && has("input_length"):
		return FormatBailian, nil
	case head[0] == '{' && has("hash_ids") && has("sys_prompt"):
		return FormatRAGPulse, nil
	case head[0] == '{' && (has("hash_ids") || has("input_length") &&
		(has("timestamp") || has("session_id") || has("delay"))):
		return FormatMooncake, nil
	case head[0] == '{' && (has("timestamp_s") || has("client")):
		return FormatVTC, nil
	case bytes.HasPrefix(first, []byte("TIMESTAMP,")) || bytes.Contains(first, []byte("ContextTokens")):
		return FormatAzure, nil
	case bytes.Contains(first, []byte("Request tokens")):
		return FormatBurstGPT, nil
	}
	return "", fmt.Errorf("cannot detect the format from the first line %.60q (use ReadOptions.Format)", first)
}
