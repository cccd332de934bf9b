package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// FormatAgentic names recorded agentic coding sessions, one JSON session
// per file (the kv-cache-tester trace format,
// https://github.com/callanjfox/kv-cache-tester/blob/main/docs/trace_replay_tester.md):
// a top-level object with id, block_size, hash_id_scope and requests;
// each request gives t (seconds since the session's start), in, out,
// hash_ids (one id per block_size tokens), output_types and, when
// recorded, api_time (the original response time in seconds); an entry
// of type "subagent" starts a sub-agent at t, with its own agent_id and
// requests timed from its start. Open reads one such file, or a
// directory of them (every *.json file, in name order), as one trace:
// see agenticSession for how a session becomes Requests.
const FormatAgentic = "agentic"

// agenticDefaultBlockSize is the tokens per hash id of a session file
// that does not state its block_size (64, the published files' own).
const agenticDefaultBlockSize = 64

// maxAgenticFileBytes bounds one session file (256 MiB; the published
// ones are under 0.5 MB), so a corrupt stream cannot exhaust memory.
const maxAgenticFileBytes = 256 << 20

// maxAgenticSeconds bounds a time in a session file (about 31 years), so
// arrivals stay far below the largest Duration.
const maxAgenticSeconds = 1e9

// agenticFile is one session file as published.
type agenticFile struct {
	ID        string         `json:"id"`
	BlockSize *int           `json:"block_size"`
	Scope     string         `json:"hash_id_scope"`
	Requests  []agenticEntry `json:"requests"`
}

// agenticEntry is one element of a session's or sub-agent's requests: a
// request, or (Type "subagent") a sub-agent with requests of its own.
type agenticEntry struct {
	T           *float64       `json:"t"`
	Type        string         `json:"type"`
	Model       string         `json:"model"`
	In          *int           `json:"in"`
	Out         *int           `json:"out"`
	HashIDs     []uint64       `json:"hash_ids"`
	OutputTypes []string       `json:"output_types"`
	APITime     *float64       `json:"api_time"`
	AgentID     string         `json:"agent_id"`
	DurationMS  *float64       `json:"duration_ms"`
	Requests    []agenticEntry `json:"requests"`
}

// Hash id scopes of a session file.
const (
	agenticScopeLocal  = "local"
	agenticScopeGlobal = "global"
)

// decodeAgentic parses one session file's bytes and checks its top-level
// fields; entries are checked as they are turned into Requests.
func decodeAgentic(data []byte) (*agenticFile, error) {
	var f agenticFile
	if err := json.Unmarshal(data, &f); err != nil {
		pe, _ := jsonFieldErr(err).(*ParseError)
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			pe.Line = lineAt(data, se.Offset)
		case errors.As(err, &te):
			pe.Line = lineAt(data, te.Offset)
		default:
			pe.Line = 1
		}
		return nil, pe
	}
	top := func(field, format string, a ...any) error {
		return &ParseError{Entry: "session " + f.ID, Field: field, Err: fmt.Errorf(format, a...)}
	}
	switch {
	case f.ID == "":
		return nil, &ParseError{Entry: "session (no id)", Field: "id", Err: errors.New("missing: every session file names its session")}
	case f.BlockSize != nil && (*f.BlockSize < 1 || *f.BlockSize > MaxTokens):
		return nil, top("block_size", "%d: want 1 to %d", *f.BlockSize, MaxTokens)
	case f.Scope != "" && f.Scope != agenticScopeLocal && f.Scope != agenticScopeGlobal:
		return nil, top("hash_id_scope", "%q: want local or global", f.Scope)
	case len(f.Requests) == 0:
		return nil, top("requests", "the session has no requests")
	}
	return &f, nil
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	return 1 + bytes.Count(data[:min(max(off, 0), int64(len(data)))], []byte("\n"))
}

// readAgenticFile reads a whole session file from r (at most
// maxAgenticFileBytes).
func readAgenticFile(r io.Reader) (*agenticFile, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxAgenticFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxAgenticFileBytes {
		return nil, fmt.Errorf("a session file of more than %d bytes", maxAgenticFileBytes)
	}
	data = bytes.TrimPrefix(data, []byte(bom))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &ParseError{Line: 1, Err: errors.New("empty session file")}
	}
	return decodeAgentic(data)
}

// seconds checks a time field of an entry: present when required,
// finite, in [0, maxAgenticSeconds].
func seconds(v *float64, required bool) (float64, error) {
	switch {
	case v == nil && required:
		return 0, errors.New("missing")
	case v == nil:
		return 0, nil
	case math.IsNaN(*v) || *v < 0 || *v > maxAgenticSeconds:
		return 0, fmt.Errorf("%v s: want 0 to %g s", *v, float64(maxAgenticSeconds))
	}
	return *v, nil
}

// hashCountOK reports whether n ids fit a prompt of in tokens in blocks
// of bs: one per whole block (the published files, where the last,
// partial block has no id) or one per block counting the partial one.
func hashCountOK(n, in, bs int) bool {
	return n == in/bs || n == (in+bs-1)/bs
}
