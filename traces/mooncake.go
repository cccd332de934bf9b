package traces

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// mooncakeRecord is one line of a Mooncake trace (kvcache-ai/Mooncake
// FAST25-release): timestamp in ms since the trace start, input and output
// lengths in tokens, hash_ids one per block of BlockSize tokens. Traces in
// the same format made for multi-turn replay (AIPerf's mooncake_trace)
// add session_id and delay (ms before the turn is sent) and may omit
// timestamp and output_length.
type mooncakeRecord struct {
	Timestamp    *float64        `json:"timestamp"`
	InputLength  *int            `json:"input_length"`
	OutputLength *int            `json:"output_length"`
	HashIDs      []uint64        `json:"hash_ids"`
	SessionID    json.RawMessage `json:"session_id"`
	Delay        *float64        `json:"delay"`
}

// mooncakeRow is a decoded line before its arrival is settled.
type mooncakeRow struct {
	r        Request
	hasTime  bool
	delay    time.Duration
	hasDelay bool
}

// mooncakeReader settles arrivals: a row with a timestamp arrives then; a
// session's later turn without one arrives delay after the session's
// previous turn (trace time: the replay does not wait for the previous
// response); any other row arrives with the row before it. Rows are
// released in arrival order once no later row can arrive before them.
type mooncakeReader struct {
	lr       *lineReader
	bs       int
	unit     timeUnit
	m        merger
	sessions map[string]sessState
	frontier time.Duration
	lastOut  time.Duration
	eof      bool
}

type sessState struct {
	last  time.Duration
	turns int
}

func newMooncake(br *bufio.Reader, bs int, unit timeUnit) *mooncakeReader {
	return &mooncakeReader{lr: newLineReader(br), bs: bs, unit: unit, sessions: map[string]sessState{}}
}

func (mr *mooncakeReader) lineNo() int { return mr.lr.line }

func (mr *mooncakeReader) next() (Request, error) {
	for {
		if r, ok := mr.m.popUpTo(mr.frontier); ok {
			return mr.emit(r), nil
		}
		if mr.eof {
			r, ok := mr.m.pop()
			if !ok {
				return Request{}, io.EOF
			}
			return mr.emit(r), nil
		}
		row, err := mr.read()
		if err != nil || mr.eof {
			if err != nil {
				return Request{}, err
			}
			continue
		}
		mr.settle(&row)
		if mr.m.len() == 0 && row.r.Arrival <= mr.frontier {
			return mr.emit(row.r), nil // in order already: skip the heap
		}
		mr.m.push(row.r)
	}
}

// emit releases r, never earlier than the Request released before it.
func (mr *mooncakeReader) emit(r Request) Request {
	r.Arrival = max(r.Arrival, mr.lastOut)
	mr.lastOut = r.Arrival
	return r
}

// read decodes the next non-blank line (setting eof at the end).
func (mr *mooncakeReader) read() (mooncakeRow, error) {
	line, err := mr.lr.readLine()
	for err == nil && isBlank(line) {
		line, err = mr.lr.readLine()
	}
	if err == io.EOF {
		mr.eof = true
		return mooncakeRow{}, nil
	}
	if err != nil {
		return mooncakeRow{}, err
	}
	row, err := decodeMooncake(line, mr.lr.line, mr.bs, mr.unit)
	if err != nil {
		return mooncakeRow{}, atLine(err, mr.lr.line)
	}
	if row.hasTime && row.r.Arrival < mr.frontier {
		return mooncakeRow{}, &ParseError{Line: mr.lr.line, Field: "timestamp",
			Err: fmt.Errorf("%v is before the previous row's %v (sort the trace by time)", row.r.Arrival, mr.frontier)}
	}
	return row, nil
}

// settle sets the row's arrival and turn.
func (mr *mooncakeReader) settle(row *mooncakeRow) {
	r := &row.r
	s, seen := mr.sessions[r.Session]
	switch {
	case row.hasTime:
		mr.frontier = max(mr.frontier, r.Arrival)
	case r.Session != "" && seen && row.hasDelay:
		r.Arrival = addDur(s.last, row.delay)
	default:
		r.Arrival = mr.frontier
	}
	if r.Session != "" {
		r.Turn = s.turns
		mr.sessions[r.Session] = sessState{last: r.Arrival, turns: s.turns + 1}
	}
}

// decodeMooncake decodes one line with bs tokens per hash id and times
// (timestamp, delay) in unit (milliseconds in the published traces). It checks
// len(hash_ids) == ceil(input_length / bs) when hash_ids are given, which
// holds on every row of the public traces at their block size.
func decodeMooncake(line []byte, lineNo, bs int, unit timeUnit) (mooncakeRow, error) {
	rec, ok := fastMooncake(line)
	if !ok {
		rec = mooncakeRecord{}
		if err := json.Unmarshal(line, &rec); err != nil {
			return mooncakeRow{}, jsonFieldErr(err)
		}
	}
	if rec.InputLength == nil {
		return mooncakeRow{}, fieldErr("input_length", "missing")
	}
	row := mooncakeRow{r: Request{ID: strconv.Itoa(lineNo), InputTokens: *rec.InputLength}}
	if rec.OutputLength != nil {
		row.r.OutputTokens = *rec.OutputLength
	}
	if len(rec.HashIDs) > 0 {
		row.r.BlockIDs, row.r.BlockSize = rec.HashIDs, bs
	}
	if err := checkBlocks(&row.r, bs); err != nil {
		return mooncakeRow{}, err
	}
	var err error
	if rec.Timestamp != nil {
		row.hasTime = true
		if row.r.Arrival, err = unit.toDuration("timestamp", *rec.Timestamp); err != nil {
			return mooncakeRow{}, err
		}
	}
	if rec.Delay != nil {
		row.hasDelay = true
		if row.delay, err = unit.toDuration("delay", *rec.Delay); err != nil {
			return mooncakeRow{}, err
		}
	}
	row.r.Session, err = sessionID(rec.SessionID)
	return row, err
}

// checkBlocks validates lengths and the hash id count of a block trace.
func checkBlocks(r *Request, bs int) error {
	if err := lengthsOK(r, "input_length", "output_length"); err != nil {
		return err
	}
	if r.BlockIDs == nil {
		return nil
	}
	want := (r.InputTokens + bs - 1) / bs
	if len(r.BlockIDs) != want {
		return fieldErr("hash_ids", "%d ids for input_length %d at block size %d, want %d (is ReadOptions.BlockSize right?)",
			len(r.BlockIDs), r.InputTokens, bs, want)
	}
	return nil
}

// sessionID accepts a JSON string or number (absent or null: none).
func sessionID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fieldErr("session_id", "want a string or number, got %s", raw)
	}
	return n.String(), nil
}
