package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fuzzRead reads data as format twice (failing and skipping) and checks
// what every reader promises for any input: no panic, Arrival never
// decreasing, lengths never negative, record errors naming the file and a
// line, and with SkipInvalid no record error at all.
func fuzzRead(t *testing.T, format string, data []byte) {
	fuzzReadWith(t, ReadOptions{Format: format, BlockSize: 16}, data)
}

// fuzzReadWith is fuzzRead with the read options opt.
func fuzzReadWith(t *testing.T, opt ReadOptions, data []byte) {
	for _, skip := range []bool{false, true} {
		opt.SkipInvalid = skip
		fs, err := NewReader(bytes.NewReader(data), "fuzz.trace", opt)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.trace") {
				t.Fatalf("open error %q does not name the file", err)
			}
			return
		}
		var last Request
		for n := 0; n < 1<<16; n++ {
			r, err := fs.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				checkFuzzErr(t, err, skip)
				break
			}
			if r.Arrival < last.Arrival || r.Arrival < 0 || r.InputTokens < 0 || r.OutputTokens < 0 ||
				r.InputTokens > MaxTokens || r.OutputTokens > MaxTokens {
				t.Fatalf("bad request %+v after %+v", r, last)
			}
			checkRender(t, &r)
			last = r
		}
		if !skip && fs.Skipped() != 0 {
			t.Fatalf("skipped %d without SkipInvalid", fs.Skipped())
		}
	}
}

// checkRender checks a Request whose prompt is synthesised (no text or
// token ids given) renders at most MaxTokens words, and renders short
// prompts to exactly that many words.
func checkRender(t *testing.T, r *Request) {
	if len(r.TokenIDs) > 0 || r.Prompt != "" || len(r.Messages) > 0 {
		PromptText(r)
		return
	}
	n := int64(r.InputTokens)
	if n == 0 {
		n = int64(len(r.BlockIDs)) * int64(blockSize(r))
	}
	if n > MaxTokens {
		t.Fatalf("request %s would render %d tokens, above MaxTokens", r.ID, n)
	}
	if n > 1<<12 {
		return // large but bounded: not worth rendering on every input
	}
	if got := len(strings.Fields(PromptText(r))); int64(got) != n {
		t.Fatalf("request %s renders %d words, want %d", r.ID, got, n)
	}
}

func checkFuzzErr(t *testing.T, err error, skip bool) {
	if !strings.Contains(err.Error(), "read trace fuzz.trace") {
		t.Fatalf("error %q does not name the file", err)
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		if skip {
			t.Fatalf("record error %q returned with SkipInvalid", err)
		}
		if pe.Line < 1 && pe.Entry == "" {
			t.Fatalf("error %q has no line and no entry", err)
		}
	}
}

func FuzzNative(f *testing.F) {
	f.Add([]byte(`{"id":"a","arrival_ns":5,"prompt":"x y","input_tokens":2,"output_tokens":3}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, FormatNative, data) })
}

func FuzzMooncake(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 20, "output_length": 5, "hash_ids": [0, 1]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, FormatMooncake, data) })
}

func FuzzVTC(f *testing.F) {
	f.Add([]byte(`{"req_id": 0, "timestamp_s": 0.5, "client": "c", "input_length": 13, "output_length": 199}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, FormatVTC, data) })
}

func FuzzAzure(f *testing.F) {
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,4808,10\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, FormatAzure, data) })
}

func FuzzBurstGPT(f *testing.F) {
	f.Add([]byte("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, FormatBurstGPT, data) })
}

func FuzzShareGPT(f *testing.F) {
	f.Add([]byte(`[{"id":"a","conversations":[{"from":"human","value":"hi"},{"from":"gpt","value":"yo"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, FormatShareGPT, data) })
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 20, "output_length": 5, "hash_ids": [0, 1]}`))
	f.Add([]byte(`{"id": "s", "block_size": 4, "requests": [{"t": 0, "in": 9, "out": 1, "hash_ids": [1, 2]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, FormatAuto, data) })
}

// FuzzMooncakeFast checks the reflection-free Mooncake parser against
// encoding/json: whenever it accepts a line, json accepts it too and
// decodes the same record.
func FuzzMooncakeFast(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 20, "output_length": 5, "hash_ids": [0, 1]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fast, ok := fastMooncake(line)
		if !ok {
			return
		}
		var slow mooncakeRecord
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatalf("fast parser accepted %q, json rejects it: %v", line, err)
		}
		if d := cmp.Diff(slow, fast, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("%q decodes differently (-json +fast):\n%s", line, d)
		}
	})
}

func FuzzBailian(f *testing.F) {
	f.Add([]byte(`{"chat_id": 1, "parent_chat_id": -1, "timestamp": 61.1, "input_length": 20, "output_length": 5, "type": "text", "turn": 1, "hash_ids": [7, 8]}` + "\n" +
		`{"chat_id": 2, "parent_chat_id": 1, "timestamp": 62, "input_length": 40, "output_length": 5, "turn": 2, "hash_ids": [7, 8, 9]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, FormatBailian, data) })
}

func FuzzRAGPulse(f *testing.F) {
	f.Add([]byte(`{"timestamp": "82", "input_length": 40, "output_length": 12, "hash_ids": {"sys_prompt": [8302, 8303], "passages_ids": [5, 6], "history": [15200], "web_search": [], "user_input": [26923]}, "session_id": "s"}` + "\n"))
	f.Add([]byte(twoWindows))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, w := range WindowModes {
			fuzzReadWith(t, ReadOptions{Format: FormatRAGPulse, SegmentDir: "testdata/ragpulse", Windows: w}, data)
		}
	})
}
