package traces

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ragPulseSegments are the named segments of a RAGPulse request's
// hash_ids, in the order the published trace lists them and its replay
// concatenates them (flashserve/RAGPulse, data/0_trace.jsonl): system
// prompt, retrieved passages, chat history, web search results, the
// user's question.
var ragPulseSegments = []string{"sys_prompt", "passages_ids", "history", "web_search", "user_input"}

// RAGPulseSegmentFiles are the files, next to the trace, that give every
// hash id's token length (one {"<kind>_id": N, "token_length": L} per
// line; ids are unique across the files).
var RAGPulseSegmentFiles = []string{"1_sys_prompt.jsonl", "2_passages.jsonl", "3_history.jsonl",
	"4_user_input.jsonl", "5_web_search.jsonl"}

// ragPulseRecord is one line of data/0_trace.jsonl: timestamp as a string
// (or number) of seconds from the trace start (the unit the RAGPulse
// README's Components section gives,
// https://github.com/flashserve/RAGPulse#components; the published file's
// time restarts at its second week, see WindowsSequential), input_length and
// output_length in tokens, hash_ids by segment, session_id.
type ragPulseRecord struct {
	Timestamp    json.RawMessage            `json:"timestamp"`
	InputLength  *int                       `json:"input_length"`
	OutputLength *int                       `json:"output_length"`
	HashIDs      map[string]json.RawMessage `json:"hash_ids"`
	SessionID    json.RawMessage            `json:"session_id"`
}

// ragPulseDecoder decodes RAGPulse lines. Each hash id stands for a
// segment piece of its own token length (lengths), rendered as that many
// token ids determined by the id alone, so a system prompt or passage
// shared by two requests is the same token sequence in both and a prefix
// cache hits exactly where the trace shares segments. The pieces are
// concatenated in segment order and cut or padded (with ids unique to
// the request) to input_length.
func ragPulseDecoder(lengths map[uint64]int, unit timeUnit) func([]byte, int, *Request) error {
	return func(line []byte, lineNo int, r *Request) error {
		var rec ragPulseRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return jsonFieldErr(err)
		}
		if len(rec.Timestamp) == 0 {
			return fieldErr("timestamp", "missing")
		}
		if err := lengthsPresent(rec.InputLength, rec.OutputLength); err != nil {
			return err
		}
		if rec.HashIDs == nil {
			return fieldErr("hash_ids", "missing")
		}
		v, err := numberOrString(rec.Timestamp)
		if err != nil {
			return fieldErr("timestamp", "want seconds as a number or string, got %s", rec.Timestamp)
		}
		*r = Request{ID: strconv.Itoa(lineNo), InputTokens: *rec.InputLength, OutputTokens: *rec.OutputLength}
		if r.Arrival, err = unit.toDuration("timestamp", v); err != nil {
			return err
		}
		if err := lengthsOK(r, "input_length", "output_length"); err != nil {
			return err
		}
		if r.Session, err = sessionID(rec.SessionID); err != nil {
			return err
		}
		r.TokenIDs, err = ragPulseTokens(rec.HashIDs, lengths, r)
		return err
	}
}

// ragPulseTokens renders the segments' hash ids as token ids.
func ragPulseTokens(segs map[string]json.RawMessage, lengths map[uint64]int, r *Request) ([]int, error) {
	for k := range segs {
		if !containsString(ragPulseSegments, k) {
			return nil, fieldErr("hash_ids."+k, "unknown segment (known: %s)", strings.Join(ragPulseSegments, ", "))
		}
	}
	out := make([]int, 0, r.InputTokens)
	for _, name := range ragPulseSegments {
		raw, ok := segs[name]
		if !ok || string(raw) == "null" {
			continue
		}
		var ids []uint64
		if err := json.Unmarshal(raw, &ids); err != nil {
			return nil, fieldErr("hash_ids."+name, "want a list of ids, got %.40s", raw)
		}
		for _, id := range ids {
			n, ok := lengths[id]
			if !ok {
				return nil, fieldErr("hash_ids."+name, "id %d has no token length in the segment files (%s)", id, strings.Join(RAGPulseSegmentFiles, ", "))
			}
			if len(out) < r.InputTokens {
				out = appendTokens(out, blockKey(id), 0, min(n, r.InputTokens-len(out)))
			}
		}
	}
	if len(out) < r.InputTokens {
		out = appendTokens(out, idKey(r.ID), 0, r.InputTokens-len(out))
	}
	return out, nil
}

// numberOrString reads a JSON number, or a string holding one.
func numberOrString(raw json.RawMessage) (float64, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strconv.ParseFloat(strings.TrimSpace(s), 64)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, fmt.Errorf("not a number: %s", raw)
	}
	return f, nil
}

// containsString reports whether list holds s.
func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
