package traces

import (
	"encoding/json"
	"strconv"
)

// vtcRecord is one line of the VTC artifact's Chatbot Arena trace
// (Ying1123/VTC-artifact fair_bench/real_trace, exported to JSONL).
type vtcRecord struct {
	ReqID        json.RawMessage `json:"req_id"`
	TimestampS   *float64        `json:"timestamp_s"`
	Client       *string         `json:"client"`
	InputLength  *int            `json:"input_length"`
	OutputLength *int            `json:"output_length"`
}

// vtcDecoder decodes VTC lines with timestamp_s in unit (seconds unless
// overridden).
func vtcDecoder(unit timeUnit) func([]byte, int, *Request) error {
	return func(line []byte, lineNo int, r *Request) error { return decodeVTC(line, lineNo, unit, r) }
}

// decodeVTC decodes a VTC line: client becomes User.
func decodeVTC(line []byte, lineNo int, unit timeUnit, r *Request) error {
	var rec vtcRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return jsonFieldErr(err)
	}
	switch {
	case rec.TimestampS == nil:
		return fieldErr("timestamp_s", "missing")
	case rec.Client == nil || *rec.Client == "":
		return fieldErr("client", "missing")
	case rec.InputLength == nil:
		return fieldErr("input_length", "missing")
	case rec.OutputLength == nil:
		return fieldErr("output_length", "missing")
	}
	at, err := unit.toDuration("timestamp_s", *rec.TimestampS)
	if err != nil {
		return err
	}
	id, err := sessionID(rec.ReqID)
	if err != nil {
		return fieldErr("req_id", "want a string or number, got %s", rec.ReqID)
	}
	if id == "" {
		id = strconv.Itoa(lineNo)
	}
	*r = Request{ID: id, Arrival: at, User: *rec.Client, InputTokens: *rec.InputLength, OutputTokens: *rec.OutputLength}
	return lengthsOK(r, "input_length", "output_length")
}

// lengthsOK checks token counts lie in [0, MaxTokens].
func lengthsOK(r *Request, in, out string) error {
	if err := tokenCount(in, r.InputTokens); err != nil {
		return err
	}
	return tokenCount(out, r.OutputTokens)
}

// tokenCount checks a token count lies in [0, MaxTokens].
func tokenCount(field string, n int) error {
	switch {
	case n < 0:
		return fieldErr(field, "negative (%d)", n)
	case n > MaxTokens:
		return fieldErr(field, "%d tokens, above the limit of %d", n, MaxTokens)
	}
	return nil
}
