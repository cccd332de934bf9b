package traces

import (
	"encoding/json"
	"strconv"
)

// mooncakeRecord is one line of a Mooncake trace (kvcache-ai/Mooncake
// FAST25-release): timestamp in ms since the trace start, input and output
// lengths in tokens, hash_ids one per block of BlockSize tokens, and, in
// some traces, session_id and delay (ms).
type mooncakeRecord struct {
	Timestamp    *float64        `json:"timestamp"`
	InputLength  *int            `json:"input_length"`
	OutputLength *int            `json:"output_length"`
	HashIDs      []uint64        `json:"hash_ids"`
	SessionID    json.RawMessage `json:"session_id"`
	Delay        *float64        `json:"delay"`
}

// mooncakeDecoder decodes Mooncake lines with bs tokens per hash id. It
// checks len(hash_ids) == ceil(input_length / bs), which holds on every
// row of the public traces at their block size.
func mooncakeDecoder(bs int) func([]byte, int, *Request) error {
	return func(line []byte, lineNo int, r *Request) error {
		var rec mooncakeRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return jsonFieldErr(err)
		}
		switch {
		case rec.Timestamp == nil:
			return fieldErr("timestamp", "missing")
		case rec.InputLength == nil:
			return fieldErr("input_length", "missing")
		case rec.OutputLength == nil:
			return fieldErr("output_length", "missing")
		}
		at, err := secondsToDuration("timestamp", *rec.Timestamp/1000)
		if err != nil {
			return err
		}
		*r = Request{ID: strconv.Itoa(lineNo), Arrival: at, BlockIDs: rec.HashIDs, BlockSize: bs,
			InputTokens: *rec.InputLength, OutputTokens: *rec.OutputLength}
		if err := checkBlocks(r, bs); err != nil {
			return err
		}
		if r.Session, err = sessionID(rec.SessionID); err != nil {
			return err
		}
		if rec.Delay != nil && (*rec.Delay < 0 || *rec.Delay != *rec.Delay) {
			return fieldErr("delay", "negative or NaN (%v)", *rec.Delay)
		}
		return nil
	}
}

// checkBlocks validates lengths and the hash id count of a block trace.
func checkBlocks(r *Request, bs int) error {
	switch {
	case r.InputTokens < 0:
		return fieldErr("input_length", "negative (%d)", r.InputTokens)
	case r.OutputTokens < 0:
		return fieldErr("output_length", "negative (%d)", r.OutputTokens)
	}
	want := (r.InputTokens + bs - 1) / bs
	if len(r.BlockIDs) != want {
		return fieldErr("hash_ids", "%d ids for input_length %d at block size %d, want %d (is --block-size right?)",
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
