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
// block_size, lora_id, medium], ["BlockRemoved", block_hashes, medium],
// ["AllBlocksCleared"].
func Encode(b Batch) ([]byte, error) {
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	err := errors.Join(e.EncodeArrayLen(3), e.EncodeFloat64(b.TS), e.EncodeArrayLen(len(b.Events)))
	for i := range b.Events {
		err = errors.Join(err, encodeEvent(e, &b.Events[i]))
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
		err := errors.Join(e.EncodeArrayLen(7), e.EncodeString(TagStored), encodeHashes(e, ev.Hashes))
		if ev.HasParent {
			err = errors.Join(err, e.EncodeUint(ev.Parent))
		} else {
			err = errors.Join(err, e.EncodeNil())
		}
		err = errors.Join(err, e.EncodeArrayLen(len(ev.Tokens)))
		for _, t := range ev.Tokens {
			err = errors.Join(err, e.EncodeInt(int64(t)))
		}
		err = errors.Join(err, e.EncodeInt(int64(ev.BlockSize)))
		if ev.HasLoRA {
			err = errors.Join(err, e.EncodeInt(ev.LoRAID))
		} else {
			err = errors.Join(err, e.EncodeNil())
		}
		return errors.Join(err, encodeMedium(e, ev.Medium))
	case Removed:
		return errors.Join(e.EncodeArrayLen(3), e.EncodeString(TagRemoved), encodeHashes(e, ev.Hashes),
			encodeMedium(e, ev.Medium))
	case Cleared:
		return errors.Join(e.EncodeArrayLen(1), e.EncodeString(TagCleared))
	}
	return fmt.Errorf("event kind %d has no wire tag", ev.Kind)
}

func encodeHashes(e *msgpack.Encoder, hs []uint64) error {
	err := e.EncodeArrayLen(len(hs))
	for _, h := range hs {
		err = errors.Join(err, e.EncodeUint(h))
	}
	return err
}

func encodeMedium(e *msgpack.Encoder, m string) error {
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

// Decode reads one payload written by vLLM (or Encode). It accepts
// vLLM's later additions: extra trailing fields of an event, a nil
// data-parallel rank, a two-field batch, and block hashes sent as bytes
// (hashed to 64 bits with xxhash). Events with an unknown tag are skipped
// and counted; anything else that does not parse is an error for the whole
// payload.
func Decode(p []byte) (Decoded, error) {
	var out Decoded
	src := bytes.NewReader(p)
	d := dec{msgpack.NewDecoder(src), src}
	n, err := d.DecodeArrayLen()
	if err != nil || n < 2 {
		return out, fmt.Errorf("kv event batch: want an array of [ts, events, dp_rank], got %s", describe(n, err))
	}
	if out.TS, err = d.DecodeFloat64(); err != nil {
		return out, fmt.Errorf("kv event batch field ts: %w", err)
	}
	m, err := d.DecodeArrayLen()
	if err != nil || m < 0 {
		return out, fmt.Errorf("kv event batch field events: want an array, got %s", describe(m, err))
	}
	out.Events = make([]Event, 0, min(m, len(p))) // each event takes ≥ 1 byte
	for i := range m {
		ev, tag, err := decodeEvent(d)
		switch {
		case errors.Is(err, ErrUnknownTag):
			if out.UnknownTags == 0 {
				out.FirstUnknown = tag
			}
			out.UnknownTags++
		case err != nil:
			return out, fmt.Errorf("kv event batch event %d: %w", i, err)
		default:
			out.Events = append(out.Events, ev)
		}
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

func describe(n int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d elements", n)
}

// decodeEvent reads one tagged array-like event; on an unknown tag it
// skips the rest of the event and returns the tag with ErrUnknownTag.
func decodeEvent(d dec) (Event, string, error) {
	var ev Event
	n, err := d.DecodeArrayLen()
	if err != nil || n < 1 {
		return ev, "", fmt.Errorf("want a tagged array, got %s", describe(n, err))
	}
	tag, err := d.DecodeString()
	if err != nil {
		return ev, "", fmt.Errorf("tag: %w", err)
	}
	var need int
	switch tag {
	case TagStored:
		ev.Kind, need = Stored, 6
		err = decodeStored(d, &ev)
	case TagRemoved:
		ev.Kind, need = Removed, 1
		ev.Hashes, err = decodeHashes(d)
		if err == nil && n > 2 {
			ev.Medium, err = decodeOptString(d)
			need = 2
		}
	case TagCleared:
		ev.Kind = Cleared
	default:
		for range n - 1 {
			if err := d.Skip(); err != nil {
				return ev, tag, err
			}
		}
		return ev, tag, ErrUnknownTag
	}
	if err != nil {
		return ev, tag, fmt.Errorf("%s: %w", tag, err)
	}
	if n-1 < need {
		return ev, tag, fmt.Errorf("%s: %d fields, want at least %d", tag, n-1, need)
	}
	for range n - 1 - need {
		if err := d.Skip(); err != nil {
			return ev, tag, fmt.Errorf("%s: %w", tag, err)
		}
	}
	return ev, tag, nil
}

// decodeStored reads BlockStored's six leading fields.
func decodeStored(d dec, ev *Event) error {
	var err error
	if ev.Hashes, err = decodeHashes(d); err != nil {
		return fmt.Errorf("block_hashes: %w", err)
	}
	if ev.Parent, ev.HasParent, err = decodeOptHash(d); err != nil {
		return fmt.Errorf("parent_block_hash: %w", err)
	}
	n, err := d.DecodeArrayLen()
	if err != nil {
		return fmt.Errorf("token_ids: %w", err)
	}
	if n < 0 || n > d.src.Len() {
		return fmt.Errorf("token_ids: %d elements, more than the payload holds", n)
	}
	ev.Tokens = make([]int, n)
	for i := range ev.Tokens {
		t, err := d.DecodeInt64()
		if err != nil {
			return fmt.Errorf("token_ids[%d]: %w", i, err)
		}
		ev.Tokens[i] = int(t)
	}
	if ev.BlockSize, err = d.DecodeInt(); err != nil {
		return fmt.Errorf("block_size: %w", err)
	}
	if c, _ := d.PeekCode(); c == msgpcode.Nil {
		err = d.DecodeNil()
	} else if ev.LoRAID, err = d.DecodeInt64(); err == nil {
		ev.HasLoRA = true
	}
	if err != nil {
		return fmt.Errorf("lora_id: %w", err)
	}
	if ev.Medium, err = decodeOptString(d); err != nil {
		return fmt.Errorf("medium: %w", err)
	}
	return nil
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
