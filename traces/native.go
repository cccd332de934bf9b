package traces

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// The native format is JSONL, one Request per line, with the JSON names of
// Request's fields: arrival_ns (offset from the trace start in
// nanoseconds), id, user, session, turn, after, think_ns, think_known,
// model, lora, prompt, messages, block_ids, token_ids, block_size,
// input_tokens, output_tokens, slot (a llama.cpp slot id), recorded. Lines are in non-decreasing
// arrival_ns order, and a Request's after names only Requests on earlier
// lines, so sessions cannot wait on each other in a cycle. WriteNative
// writes it and Open reads it back unchanged.

// WriteNative writes every Request of src to w as native JSONL and
// returns how many it wrote. It stops at src's first error.
func WriteNative(w io.Writer, src Source) (int, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	n := 0
	for {
		r, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush()
			return n, err
		}
		b, err := json.Marshal(&r)
		if err != nil {
			return n, fmt.Errorf("encode request %s: %w", r.ID, err)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return n, fmt.Errorf("write native trace: %w", err)
		}
		n++
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("write native trace: %w", err)
	}
	return n, nil
}

// nativeRecord mirrors Request with every field optional, to tell a
// missing field from a zero one.
type nativeRecord struct {
	Request
	ArrivalNS    *int64 `json:"arrival_ns"`
	InputTokens  *int   `json:"input_tokens"`
	OutputTokens *int   `json:"output_tokens"`
}

// maxSlot is the highest slot id a native trace may pin a Request to.
const maxSlot = 1 << 16

// nativeDecoder decodes native lines, remembering the ids read so far
// (8 bytes of hash per Request) to check every after names an earlier
// Request.
type nativeDecoder struct {
	seen map[uint64]struct{}
}

func newNativeDecoder() *nativeDecoder { return &nativeDecoder{seen: map[uint64]struct{}{}} }

// decode parses one native line into r and checks its after ids.
func (d *nativeDecoder) decode(line []byte, lineNo int, r *Request) error {
	if err := decodeNative(line, lineNo, r); err != nil {
		return err
	}
	if err := d.checkAfter(r); err != nil {
		return err
	}
	d.seen[xxhash.Sum64String(r.ID)] = struct{}{}
	return nil
}

// checkAfter checks that r waits only on Requests read before it.
func (d *nativeDecoder) checkAfter(r *Request) error {
	for i, id := range r.After {
		field := fmt.Sprintf("after[%d]", i)
		switch _, ok := d.seen[xxhash.Sum64String(id)]; {
		case id == "":
			return fieldErr(field, "empty id")
		case id == r.ID:
			return fieldErr(field, "%q is the request itself: a request cannot wait on itself", id)
		case !ok:
			return fieldErr(field, "%q names no earlier request: a request waits only on requests on earlier lines (a later or unknown id would make its session wait forever or in a cycle)", id)
		}
	}
	return nil
}

// decodeNative parses one native line into r.
func decodeNative(line []byte, lineNo int, r *Request) error {
	var rec nativeRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return jsonFieldErr(err)
	}
	*r = rec.Request
	if rec.ArrivalNS == nil {
		return fieldErr("arrival_ns", "missing")
	}
	if *rec.ArrivalNS < 0 {
		return fieldErr("arrival_ns", "negative (%d)", *rec.ArrivalNS)
	}
	r.Arrival = durationNS(*rec.ArrivalNS)
	if rec.OutputTokens == nil {
		return fieldErr("output_tokens", "missing")
	}
	r.OutputTokens = *rec.OutputTokens
	if rec.InputTokens != nil {
		r.InputTokens = *rec.InputTokens
	}
	if r.ID == "" {
		r.ID = strconv.Itoa(lineNo)
	}
	if r.Think < 0 {
		return fieldErr("think_ns", "negative (%d)", int64(r.Think))
	}
	if r.Slot != nil && (*r.Slot < 0 || *r.Slot > maxSlot) {
		return fieldErr("slot", "%d: want a llama.cpp slot id from 0 to %d", *r.Slot, maxSlot)
	}
	return validateRequest(r)
}

// validateRequest checks the fields every format shares.
func validateRequest(r *Request) error {
	if err := lengthsOK(r, "input_tokens", "output_tokens"); err != nil {
		return err
	}
	switch {
	case r.BlockSize < 0 || r.BlockSize > MaxTokens:
		return fieldErr("block_size", "%d: want 0 (default) to %d", r.BlockSize, MaxTokens)
	case r.Turn < 0:
		return fieldErr("turn", "negative (%d)", r.Turn)
	case r.InputTokens == 0 && int64(len(r.BlockIDs))*int64(blockSize(r)) > MaxTokens:
		return fieldErr("block_ids", "%d blocks of %d tokens, above the limit of %d tokens", len(r.BlockIDs), blockSize(r), MaxTokens)
	}
	for i, m := range r.Messages {
		switch m.Role {
		case "system", "user", "assistant", "tool", "developer":
		default:
			return fieldErr(fmt.Sprintf("messages[%d].role", i), "unknown role %q", m.Role)
		}
	}
	return nil
}
