package traces

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tracebench/tracebench/traces/tokenizer"
)

// ShareGPT defaults: the file has no times, so conversations start
// SessionGap apart and turns follow ThinkTime apart; turns with no answer
// (the 500-conversation sample keeps the first human turn only) ask for
// DefaultShareGPTOutput tokens.
const (
	DefaultThinkTime      = 10 * time.Second
	DefaultSessionGap     = time.Second
	DefaultShareGPTOutput = 256
)

// shareGPTConv is one element of a ShareGPT JSON array.
type shareGPTConv struct {
	ID            json.RawMessage `json:"id"`
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

// shareGPTReader streams a ShareGPT array: every conversation is a
// session, and each human turn a Request whose Messages are the history so
// far (earlier turns and answers); PromptText joins them by newlines, so
// turn k's prompt is a prefix of turn k+1's.
type shareGPTReader struct {
	dec     *json.Decoder
	lines   *lineCounter
	tok     tokenizer.Tokenizer
	opt     ReadOptions
	m       merger
	n       int // conversations read
	started bool
	done    bool
	line    int
}

func newShareGPT(br *bufio.Reader, opt ReadOptions) (*shareGPTReader, error) {
	tok, err := tokenizer.New(opt.Tokenizer)
	if err != nil {
		return nil, err
	}
	if opt.ThinkTime <= 0 {
		opt.ThinkTime = DefaultThinkTime
	}
	if opt.SessionGap <= 0 {
		opt.SessionGap = DefaultSessionGap
	}
	lc := &lineCounter{r: br, line: 1}
	return &shareGPTReader{dec: json.NewDecoder(lc), lines: lc, tok: tok, opt: opt}, nil
}

func (s *shareGPTReader) lineNo() int { return s.line }

// start returns the arrival of conversation i's first turn.
func (s *shareGPTReader) start(i int) time.Duration { return time.Duration(i) * s.opt.SessionGap }

func (s *shareGPTReader) next() (Request, error) {
	for {
		if r, ok := s.m.popUpTo(s.start(s.n)); ok || s.done {
			if ok {
				return r, nil
			}
			if r, ok := s.m.pop(); ok {
				return r, nil
			}
			return Request{}, io.EOF
		}
		if err := s.readConv(); err != nil {
			return Request{}, err
		}
	}
}

// readConv decodes the next conversation and pushes its turns.
func (s *shareGPTReader) readConv() error {
	if !s.started {
		t, err := s.dec.Token()
		if err != nil {
			return fmt.Errorf("ShareGPT: want a JSON array of conversations: %w", err)
		}
		if t != json.Delim('[') {
			return fmt.Errorf("ShareGPT: want a JSON array of conversations, starts with %v (is ReadOptions.Format right?)", t)
		}
		s.started = true
	}
	if !s.dec.More() {
		s.done = true
		return nil
	}
	s.line = s.lines.lineAt(s.valueStart())
	var c shareGPTConv
	if err := s.dec.Decode(&c); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			s.n++
			return atLine(jsonFieldErr(err), s.line)
		}
		return fmt.Errorf("ShareGPT conversation at line %d: %w", s.line, err)
	}
	reqs, err := s.turns(&c)
	s.n++
	if err != nil {
		return atLine(err, s.line)
	}
	for _, r := range reqs {
		s.m.push(r)
	}
	return nil
}

// valueStart is the offset of the next value: the decoder's offset past
// the separators and white space still buffered.
func (s *shareGPTReader) valueStart() int64 {
	off := s.dec.InputOffset()
	var b [1]byte
	rd := s.dec.Buffered()
	for {
		if n, _ := rd.Read(b[:]); n == 0 || !strings.ContainsRune(" \t\r\n,", rune(b[0])) {
			return off
		}
		off++
	}
}

// turns builds the Requests of one conversation. Turns share one history
// array (each sees its own prefix of it), token counts add up message by
// message, and Prompt is left to PromptText (the history joined by
// newlines), so a conversation of n messages costs O(n) memory.
func (s *shareGPTReader) turns(c *shareGPTConv) ([]Request, error) {
	id, err := sessionID(c.ID)
	if err != nil || id == "" {
		id = fmt.Sprintf("conv%d", s.n)
	}
	var hist []Message
	var out []Request
	tokens := 0
	for i, m := range c.Conversations {
		role, err := shareGPTRole(m.From)
		if err != nil {
			return nil, fieldErr(fmt.Sprintf("conversations[%d].from", i), "%v", err)
		}
		n := len(s.tok.Encode(m.Value))
		if role == "assistant" && len(out) > 0 && out[len(out)-1].OutputTokens == 0 {
			out[len(out)-1].OutputTokens = n
		}
		hist = append(hist, Message{Role: role, Content: m.Value})
		tokens += n
		if role != "user" {
			continue
		}
		out = append(out, Request{ID: fmt.Sprintf("%s/%d", id, len(out)), Session: id, Turn: len(out),
			Arrival:  s.start(s.n) + time.Duration(len(out))*s.opt.ThinkTime,
			Messages: hist[:len(hist):len(hist)], InputTokens: tokens})
	}
	for i := range out {
		if out[i].OutputTokens == 0 {
			out[i].OutputTokens = DefaultShareGPTOutput
		}
	}
	return out, nil
}

// shareGPTRole maps ShareGPT speaker names to chat roles.
func shareGPTRole(from string) (string, error) {
	switch strings.ToLower(from) {
	case "human", "user":
		return "user", nil
	case "gpt", "chatgpt", "bard", "bing", "assistant", "model":
		return "assistant", nil
	case "system":
		return "system", nil
	}
	return "", fmt.Errorf("unknown speaker %q (want human, gpt or system)", from)
}

// joinContents joins message contents with newlines, as PromptText does.
func joinContents(ms []Message) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.Content)
	}
	return b.String()
}

// lineCounter counts the lines of a stream as a json.Decoder reads it
// ahead, answering which line a byte offset is on.
type lineCounter struct {
	r    io.Reader
	line int     // line number of the offset last asked about
	read int64   // bytes read so far
	nl   []int64 // offsets of newlines at or after base
}

// Read implements io.Reader, noting where newlines fall.
func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.nl = append(l.nl, l.read+int64(i))
		}
	}
	l.read += int64(n)
	return n, err
}

// lineAt returns the 1-based line of offset off; offsets must not
// decrease between calls.
func (l *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(l.nl) && l.nl[i] < off {
		i++
	}
	l.line += i
	l.nl = l.nl[i:]
	return l.line
}
