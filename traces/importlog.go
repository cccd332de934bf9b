package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/traces/tokenizer"
)

// ImportOptions configure NewLogImport.
type ImportOptions struct {
	// Tokenizer counts and splits prompt text into tokens (default
	// whitespace; "tiktoken" is cl100k_base, loaded offline).
	Tokenizer tokenizer.Tokenizer
	// BlockSize is the tokens per chained block id (default 16).
	BlockSize int
	// SkipInvalid skips malformed request records (counted by Skipped)
	// instead of failing on the first one.
	SkipInvalid bool
}

// loggedRequest is one request record of a log before it is hashed.
type loggedRequest struct {
	id, user, session string
	at                time.Time
	text              string // prompt text, when the log gives no token ids
	tokens            []int  // prompt token ids, when it does
	output            int
}

// LogImport reads a request log and yields native Requests: the prompt
// tokenised and hashed into chained block ids (ChainedBlockIDs), so no
// prompt text or token id is kept and the trace can be shared. Lines are
// JSON request records (an OpenAI-format body at the top level or under
// "request"/"body", as a proxy captures them) or vLLM
// --enable-log-requests lines ("Received request ID: prompt: ...");
// other lines (a server log's other messages) are passed over and
// counted. Arrivals are relative to the first request and must not
// decrease. It implements Source.
type LogImport struct {
	name    string
	lr      *lineReader
	opt     ImportOptions
	first   time.Time
	last    time.Time
	started bool
	skipped int
	other   int
	err     error
}

// NewLogImport reads the log r; name stands for it in errors.
func NewLogImport(r io.Reader, name string, opt ImportOptions) *LogImport {
	if opt.Tokenizer == nil {
		opt.Tokenizer = tokenizer.Whitespace{}
	}
	if opt.BlockSize < 1 {
		opt.BlockSize = DefaultImportBlockSize
	}
	br := bufio.NewReaderSize(r, 256<<10)
	if head, _ := br.Peek(len(bom)); string(head) == bom {
		br.Discard(len(bom))
	}
	return &LogImport{name: name, lr: newLineReader(br), opt: opt}
}

// Skipped returns the malformed request records skipped (SkipInvalid).
func (l *LogImport) Skipped() int { return l.skipped }

// Other returns the lines passed over as not request records.
func (l *LogImport) Other() int { return l.other }

// Next implements Source.
func (l *LogImport) Next() (Request, error) {
	for l.err == nil {
		line, err := l.lr.readLine()
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("import %s: %w", l.name, err)
			}
			l.err = err
			break
		}
		if isBlank(line) {
			continue
		}
		rec, ok, err := parseLogLine(line)
		if err == nil && !ok {
			l.other++
			continue
		}
		var r Request
		if err == nil {
			r, err = l.request(rec)
		}
		if err == nil {
			return r, nil
		}
		err = atLine(err, l.lr.line)
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = l.name
		}
		if l.opt.SkipInvalid {
			l.skipped++
			continue
		}
		l.err = err
	}
	return Request{}, l.err
}

// request hashes rec into a native Request.
func (l *LogImport) request(rec loggedRequest) (Request, error) {
	if !l.started {
		l.first, l.last, l.started = rec.at, rec.at, true
	}
	if rec.at.Before(l.last) {
		return Request{}, fieldErr("timestamp", "%s before the previous request's %s (sort the log by time)",
			rec.at.Format(time.RFC3339Nano), l.last.Format(time.RFC3339Nano))
	}
	l.last = rec.at
	tokens := rec.tokens
	if tokens == nil {
		tokens = l.opt.Tokenizer.Encode(rec.text)
	}
	r := Request{ID: rec.id, Arrival: rec.at.Sub(l.first), User: rec.user, Session: rec.session,
		InputTokens: len(tokens), OutputTokens: rec.output, BlockSize: l.opt.BlockSize}
	if r.ID == "" {
		r.ID = strconv.Itoa(l.lr.line)
	}
	if len(tokens) > 0 {
		r.BlockIDs = ChainedBlockIDs(tokens, l.opt.BlockSize)
	}
	return r, lengthsOK(&r, "prompt", "max_tokens")
}

// parseLogLine reads one line: ok is false for a line that is not a
// request record.
func parseLogLine(line []byte) (loggedRequest, bool, error) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return parseJSONRequest(trimmed)
	}
	if bytes.Contains(line, []byte("Received request ")) {
		return parseVLLMLine(line)
	}
	return loggedRequest{}, false, nil
}
