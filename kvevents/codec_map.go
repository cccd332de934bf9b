package kvevents

import (
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// tagField is the key under which msgspec writes a tagged struct's class
// name when it encodes the struct as a map (its default tag_field).
const tagField = "type"

// isMap reports whether a msgpack type code starts a map.
func isMap(c byte) bool { return msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32 }

// decodeBatchMap reads a batch written as a map {ts, events,
// data_parallel_rank}; unknown keys are skipped.
func decodeBatchMap(d dec, out *Decoded) error {
	n, err := d.DecodeMapLen()
	if err != nil {
		return fmt.Errorf("kv event batch: %w", err)
	}
	var seen bool
	for range n {
		k, err := d.DecodeString()
		if err != nil {
			return fmt.Errorf("kv event batch key: %w", err)
		}
		switch k {
		case "ts":
			out.TS, err = d.DecodeFloat64()
		case "events":
			seen = true
			err = decodeEvents(d, out)
		case "data_parallel_rank":
			out.DPRank, err = decodeOptInt(d)
		default:
			err = d.Skip()
		}
		if err != nil {
			return fmt.Errorf("kv event batch field %s: %w", k, err)
		}
	}
	if !seen {
		return errors.New("kv event batch: map without events")
	}
	return nil
}

// decodeEventMap reads an event written as a map with its class name
// under "type". msgspec writes the tag first, but any order is read:
// the fields are kept until the tag is known.
func decodeEventMap(d dec) (Event, string, error) {
	var ev Event
	n, err := d.DecodeMapLen()
	if err != nil {
		return ev, "", fmt.Errorf("want a tagged map: %w", err)
	}
	tag := ""
	got := map[string]bool{}
	for range n {
		k, err := d.DecodeString()
		if err != nil {
			return ev, tag, fmt.Errorf("field name: %w", err)
		}
		if k == tagField {
			if tag, err = d.DecodeString(); err != nil {
				return ev, tag, fmt.Errorf("%s: %w", tagField, err)
			}
			continue
		}
		if err := decodeField(d, &ev, k); err != nil {
			return ev, tag, fmt.Errorf("%s: %w", orUnknown(tag), err)
		}
		got[k] = true
	}
	kind, names, need := fieldsOf(tag)
	switch {
	case tag == "":
		return ev, tag, fmt.Errorf("map event without %q", tagField)
	case kind == 0:
		return ev, tag, ErrUnknownTag
	}
	for _, f := range names[:need] {
		if !got[f] && f != "parent_block_hash" {
			return ev, tag, fmt.Errorf("%s: no field %s", tag, f)
		}
	}
	ev.Kind = kind
	return ev, tag, nil
}

func orUnknown(tag string) string {
	if tag == "" {
		return "event"
	}
	return tag
}

// encodeEventMap writes ev as msgspec writes a tagged struct without
// array_like: a map with "type" first, then the fields in declaration
// order; fields with a default (extra_keys, group_idx) are omitted when
// unset, as vLLM's omit_defaults does.
func encodeEventMap(e *msgpack.Encoder, ev *Event) error {
	kind := map[Kind]string{Stored: TagStored, Removed: TagRemoved, Cleared: TagCleared}[ev.Kind]
	_, names, _ := fieldsOf(kind)
	switch {
	case kind == "":
		return fmt.Errorf("event kind %d has no wire tag", ev.Kind)
	case ev.Kind == Stored:
		names = names[:7] // through lora_name
	case ev.Kind == Removed:
		names = names[:2]
	}
	if ev.GroupIdx != 0 {
		names = append(names[:len(names):len(names)], "group_idx")
	}
	err := errors.Join(e.EncodeMapLen(1+len(names)), e.EncodeString(tagField), e.EncodeString(kind))
	for _, f := range names {
		err = errors.Join(err, e.EncodeString(f), encodeField(e, ev, f))
	}
	return err
}
