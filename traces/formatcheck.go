package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// jsonSignature is what a JSON-lines format needs in a record to be that
// format: every key of all and, when any is set, one key of it.
type jsonSignature struct {
	all, any []string
}

// jsonSignatures are the signatures of the JSON-lines formats, as
// detect tells them apart.
var jsonSignatures = map[string]jsonSignature{
	FormatNative:   {all: []string{"arrival_ns", "output_tokens"}},
	FormatMooncake: {all: []string{"input_length"}, any: []string{"timestamp", "hash_ids", "session_id", "delay"}},
	FormatVTC:      {all: []string{"timestamp_s", "client"}},
	FormatBailian:  {all: []string{"chat_id", "timestamp", "input_length"}},
	FormatRAGPulse: {all: []string{"timestamp", "input_length", "hash_ids"}},
}

// checkForcedFormat checks the first record of a trace read with a
// forced JSON-lines format has that format's fields, so a file in
// another format is an error naming the fields it has rather than
// Requests without times. Other formats check their CSV header or
// framing themselves. It does not consume br.
func checkForcedFormat(br *bufio.Reader, format string) error {
	sig, ok := jsonSignatures[format]
	if !ok {
		return nil
	}
	head, _ := br.Peek(br.Size())
	head = bytes.TrimLeft(head, " \t\r\n"+bom)
	line, _, _ := bytes.Cut(head, []byte("\n"))
	var rec map[string]json.RawMessage
	if len(line) == 0 || json.Unmarshal(line, &rec) != nil {
		return nil // empty, or a record the reader reports by line
	}
	keys := make([]string, 0, len(rec))
	for k := range rec {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	missing := slices.ContainsFunc(sig.all, func(k string) bool { _, ok := rec[k]; return !ok }) ||
		len(sig.any) > 0 && !slices.ContainsFunc(sig.any, func(k string) bool { _, ok := rec[k]; return ok })
	if !missing {
		return nil
	}
	want := strings.Join(sig.all, " and ")
	if len(sig.any) > 0 {
		want += " and one of " + strings.Join(sig.any, ", ")
	}
	hint := ""
	if d, err := detect(bufio.NewReader(bytes.NewReader(head))); err == nil && d != format {
		hint = fmt.Sprintf("; it looks like %s (ReadOptions.Format %s or auto)", d, d)
	}
	return fmt.Errorf("ReadOptions.Format %s: the first record has fields %s, but %s needs %s%s",
		format, strings.Join(keys, ", "), format, want, hint)
}
