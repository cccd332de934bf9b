package kvevents

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// Encode writes b as vLLM writes a KVEventBatch with msgspec's array-like
// tagged structs: [ts, [event...], dp_rank], each event an array led by
// its tag — ["BlockStored", block_hashes, parent_block_hash, token_ids,
// block_size, lora_id, medium, lora_name], ["BlockRemoved", block_hashes,
// medium], ["AllBlocksCleared"]; a non-zero GroupIdx adds extra_keys
// (nil) and group_idx to BlockStored and group_idx to BlockRemoved.
func Encode(b Batch) ([]byte, error) { return EncodeAs(b, EncodingArray) }

// EncodeAs writes b with its events in encoding enc (see Encode and
// EncodingMap); the batch is [ts, events, dp_rank] in both.
func EncodeAs(b Batch, enc Encoding) ([]byte, error) {
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	err := errors.Join(e.EncodeArrayLen(3), e.EncodeFloat64(b.TS), e.EncodeArrayLen(len(b.Events)))
	for i := range b.Events {
		if enc == EncodingMap {
			err = errors.Join(err, encodeEventMap(e, &b.Events[i]))
		} else {
			err = errors.Join(err, encodeEvent(e, &b.Events[i]))
		}
	}
	err = errors.Join(err, e.EncodeInt(int64(b.DPRank)))
	if err != nil {
		return nil, fmt.Errorf("encode kv event batch: %w", err)
	}
	return buf.Bytes(), nil
}

func encodeEvent(e *msgpack.Encoder, ev *Event) error {
	switch ev.Kind {
	case Stored:
		n := 7 // through lora_name; a group adds extra_keys and group_idx
		if ev.GroupIdx != 0 {
			n = 9
		}
		return encodeTagged(e, ev, TagStored, storedFields[:n])
	case Removed:
		n := 2 // through medium; a group adds group_idx
		if ev.GroupIdx != 0 {
			n = 3
		}
		return encodeTagged(e, ev, TagRemoved, removedFields[:n])
	case Cleared:
		return errors.Join(e.EncodeArrayLen(1), e.EncodeString(TagCleared))
	}
	return fmt.Errorf("event kind %d has no wire tag", ev.Kind)
}

// encodeTagged writes ev as an array of tag and then the named fields.
func encodeTagged(e *msgpack.Encoder, ev *Event, tag string, fields []string) error {
	err := errors.Join(e.EncodeArrayLen(1+len(fields)), e.EncodeString(tag))
	for _, f := range fields {
		err = errors.Join(err, encodeField(e, ev, f))
	}
	return err
}

// encodeField writes the value of one named field of ev.
func encodeField(e *msgpack.Encoder, ev *Event, name string) error {
	switch name {
	case "block_hashes":
		return encodeHashes(e, ev.Hashes)
	case "parent_block_hash":
		if ev.HasParent {
			return e.EncodeUint(ev.Parent)
		}
	case "token_ids":
		err := e.EncodeArrayLen(len(ev.Tokens))
		for _, t := range ev.Tokens {
			err = errors.Join(err, e.EncodeInt(int64(t)))
		}
		return err
	case "block_size":
		return e.EncodeInt(int64(ev.BlockSize))
	case "lora_id":
		if ev.HasLoRA {
			return e.EncodeInt(ev.LoRAID)
		}
	case "medium":
		return encodeOptString(e, ev.Medium)
	case "lora_name":
		return encodeOptString(e, ev.LoRAName)
	case "group_idx":
		return e.EncodeInt(int64(ev.GroupIdx))
	}
	return e.EncodeNil()
}

func encodeHashes(e *msgpack.Encoder, hs []uint64) error {
	err := e.EncodeArrayLen(len(hs))
	for _, h := range hs {
		err = errors.Join(err, e.EncodeUint(h))
	}
	return err
}

func encodeOptString(e *msgpack.Encoder, m string) error {
	if m == "" {
		return e.EncodeNil()
	}
	return e.EncodeString(m)
}

// dec is a decoder with its source, whose remaining length bounds the
// array lengths a payload may claim.
type dec struct {
	*msgpack.Decoder
	src *bytes.Reader
}

// ErrUnknownTag marks an event whose tag is none of vLLM's three; Decode
// skips such events and reports them with the batch's other events.
var ErrUnknownTag = errors.New("unknown kv event tag")

// Decoded is a decoded batch with the events that could not be used.
type Decoded struct {
	Batch
	// UnknownTags counts events skipped for an unknown tag.
	UnknownTags int
	// FirstUnknown is the first unknown tag seen.
	FirstUnknown string
}

// Decode reads one payload written by vLLM (or Encode) in either
// encoding: events as tagged arrays or as maps with a "type" key (the
// batch itself an array [ts, events, data_parallel_rank] or a map of
// those names). It accepts vLLM's later additions: the fields after
// medium (lora_name, extra_keys, group_idx, kv_cache_spec_*), unknown
// fields (skipped), a nil data-parallel rank, a two-field batch, and
// block hashes sent as bytes (hashed to 64 bits with xxhash). Events with
// an unknown tag are skipped and counted; anything else that does not
// parse is an error for the whole payload.
func Decode(p []byte) (Decoded, error) {
	var out Decoded
	src := bytes.NewReader(p)
	d := dec{msgpack.NewDecoder(src), src}
	if c, err := d.PeekCode(); err == nil && isMap(c) {
		return out, decodeBatchMap(d, &out)
	}
	n, err := d.DecodeArrayLen()
	if err != nil || n < 2 {
		return out, fmt.Errorf("kv event batch: want an array of [ts, events, dp_rank], got %s", describe(n, err))
	}
	if out.TS, err = d.DecodeFloat64(); err != nil {
		return out, fmt.Errorf("kv event batch field ts: %w", err)
	}
	if err := decodeEvents(d, &out); err != nil {
		return out, err
	}
	if n >= 3 {
		if out.DPRank, err = decodeOptInt(d); err != nil {
			return out, fmt.Errorf("kv event batch field data_parallel_rank: %w", err)
		}
		n--
	}
	for ; n > 2; n-- {
		if err := d.Skip(); err != nil {
			return out, fmt.Errorf("kv event batch: %w", err)
		}
	}
	return out, nil
}

// decodeEvents reads the batch's event list into out.
func decodeEvents(d dec, out *Decoded) error {
	m, err := d.DecodeArrayLen()
	if err != nil || m < 0 {
		return fmt.Errorf("kv event batch field events: want an array, got %s", describe(m, err))
	}
	out.Events = make([]Event, 0, min(m, d.src.Len())) // each event takes ≥ 1 byte
	for i := range m {
		ev, tag, err := decodeEvent(d)
		switch {
		case errors.Is(err, ErrUnknownTag):
			if out.UnknownTags == 0 {
				out.FirstUnknown = tag
			}
			out.UnknownTags++
		case err != nil:
			return fmt.Errorf("kv event batch event %d: %w", i, err)
		default:
			out.Events = append(out.Events, ev)
		}
	}
	return nil
}

func describe(n int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d elements", n)
}

// Field names in vLLM's declaration order (vllm/distributed/kv_events.py):
// the array encoding writes them in this order after the tag.
var (
	storedFields = []string{"block_hashes", "parent_block_hash", "token_ids", "block_size", "lora_id", "medium",
		"lora_name", "extra_keys", "group_idx", "kv_cache_spec_kind", "kv_cache_spec_sliding_window"}
	removedFields = []string{"block_hashes", "medium", "group_idx"}
)

// fieldsOf returns an event tag's kind, field names and how many
// leading fields an array must hold (a map must hold those names).
func fieldsOf(tag string) (Kind, []string, int) {
	switch tag {
	case TagStored:
		return Stored, storedFields, 4
	case TagRemoved:
		return Removed, removedFields, 1
	case TagCleared:
		return Cleared, nil, 0
	}
	return 0, nil, 0
}

// decodeEvent reads one event, a tagged array or a map with "type"; on
// an unknown tag it skips the rest of the event and returns the tag with
// ErrUnknownTag.
func decodeEvent(d dec) (Event, string, error) {
	c, err := d.PeekCode()
	if err != nil {
		return Event{}, "", err
	}
	if isMap(c) {
		return decodeEventMap(d)
	}
	var ev Event
	n, err := d.DecodeArrayLen()
	if err != nil || n < 1 {
		return ev, "", fmt.Errorf("want a tagged array or map, got %s", describe(n, err))
	}
	tag, err := d.DecodeString()
	if err != nil {
		return ev, "", fmt.Errorf("tag: %w", err)
	}
	kind, names, need := fieldsOf(tag)
	if kind == 0 {
		return ev, tag, skipN(d, n-1, ErrUnknownTag)
	}
	if n-1 < need {
		return ev, tag, fmt.Errorf("%s: %d fields, want at least %d", tag, n-1, need)
	}
	ev.Kind = kind
	for i := range n - 1 {
		name := ""
		if i < len(names) {
			name = names[i]
		}
		if err := decodeField(d, &ev, name); err != nil {
			return ev, tag, fmt.Errorf("%s: %w", tag, err)
		}
	}
	return ev, tag, nil
}

// skipN skips n values and returns err (or the skip's error).
func skipN(d dec, n int, err error) error {
	for range n {
		if e := d.Skip(); e != nil {
			return e
		}
	}
	return err
}

// decodeField reads the value of one named field into ev; unknown names
// (and extra_keys, which the index does not use) are skipped.
func decodeField(d dec, ev *Event, name string) error {
	var err error
	switch name {
	case "block_hashes":
		ev.Hashes, err = decodeHashes(d)
	case "parent_block_hash":
		ev.Parent, ev.HasParent, err = decodeOptHash(d)
	case "token_ids":
		ev.Tokens, err = decodeTokens(d)
	case "block_size":
		ev.BlockSize, err = d.DecodeInt()
	case "lora_id":
		err = decodeLoRAID(d, ev)
	case "medium":
		ev.Medium, err = decodeOptString(d)
	case "lora_name":
		ev.LoRAName, err = decodeOptString(d)
	case "group_idx":
		ev.GroupIdx, err = decodeOptInt(d)
	default:
		return d.Skip()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func decodeTokens(d dec) ([]int, error) {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > d.src.Len() {
		return nil, fmt.Errorf("%d elements, more than the payload holds", n)
	}
	toks := make([]int, n)
	for i := range toks {
		t, err := d.DecodeInt64()
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		toks[i] = int(t)
	}
	return toks, nil
}

func decodeLoRAID(d dec, ev *Event) error {
	if c, _ := d.PeekCode(); c == msgpcode.Nil {
		return d.DecodeNil()
	}
	var err error
	if ev.LoRAID, err = d.DecodeInt64(); err == nil {
		ev.HasLoRA = true
	}
	return err
}

func decodeHashes(d dec) ([]uint64, error) {
	n, err := d.DecodeArrayLen()
	if err != nil || n < 0 {
		return nil, fmt.Errorf("want an array, got %s", describe(n, err))
	}
	if n > d.src.Len() {
		return nil, fmt.Errorf("%d hashes, more than the payload holds", n)
	}
	hs := make([]uint64, n)
	for i := range hs {
		h, ok, err := decodeOptHash(d)
		if err != nil || !ok {
			return nil, fmt.Errorf("hash %d: %w", i, errors.Join(err, errors.New("nil")))
		}
		hs[i] = h
	}
	return hs, nil
}

// decodeOptHash reads a block hash: an integer (vLLM's int hashes, taken
// modulo 2⁶⁴), bytes (vLLM's sha256 hashes, folded with xxhash) or nil.
func decodeOptHash(d dec) (uint64, bool, error) {
	c, err := d.PeekCode()
	if err != nil {
		return 0, false, err
	}
	switch {
	case c == msgpcode.Nil:
		return 0, false, d.DecodeNil()
	case msgpcode.IsBin(c) || msgpcode.IsString(c):
		n, err := d.DecodeBytesLen()
		if err != nil || n < 0 || n > d.src.Len() {
			return 0, false, errors.Join(err, fmt.Errorf("%d hash bytes, more than the payload holds", n))
		}
		b := make([]byte, n)
		_, err = io.ReadFull(d.src, b)
		return xxhash.Sum64(b), err == nil, err
	case c == msgpcode.Int8 || c == msgpcode.Int16 || c == msgpcode.Int32 || c == msgpcode.Int64 ||
		msgpcode.IsFixedNum(c) && int8(c) < 0:
		v, err := d.DecodeInt64()
		return uint64(v), err == nil, err
	}
	v, err := d.DecodeUint64()
	return v, err == nil, err
}

func decodeOptString(d dec) (string, error) {
	if c, err := d.PeekCode(); err != nil {
		return "", err
	} else if c == msgpcode.Nil {
		return "", d.DecodeNil()
	}
	return d.DecodeString()
}

func decodeOptInt(d dec) (int, error) {
	if c, err := d.PeekCode(); err != nil {
		return 0, err
	} else if c == msgpcode.Nil {
		return 0, d.DecodeNil()
	}
	return d.DecodeInt()
}
