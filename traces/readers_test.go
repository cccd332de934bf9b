package traces

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// readString reads a whole trace from text.
func readString(t *testing.T, text string, opt ReadOptions) ([]Request, *FileSource, error) {
	t.Helper()
	fs, err := NewReader(strings.NewReader(text), "t.trace", opt)
	if err != nil {
		return nil, nil, err
	}
	rs, err := ReadAll(fs)
	return rs, fs, err
}

func TestReaders(t *testing.T) {
	tests := []struct {
		name, format, text string
		opt                ReadOptions
		want               []Request
	}{
		{"mooncake", FormatMooncake,
			`{"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [0, 1]}` + "\n\n" +
				`{"timestamp": 1500, "input_length": 513, "output_length": 7, "hash_ids": [0, 2]}` + "\n",
			ReadOptions{},
			[]Request{{ID: "1", BlockIDs: []uint64{0, 1}, BlockSize: 512, InputTokens: 1000, OutputTokens: 5},
				{ID: "3", Arrival: 1500 * time.Millisecond, BlockIDs: []uint64{0, 2}, BlockSize: 512, InputTokens: 513, OutputTokens: 7}}},
		{"mooncake block size 16", FormatMooncake,
			`{"timestamp": 2, "input_length": 20, "output_length": 1, "hash_ids": [4, 5]}`,
			ReadOptions{BlockSize: 16},
			[]Request{{ID: "1", BlockIDs: []uint64{4, 5}, BlockSize: 16, InputTokens: 20, OutputTokens: 1}}},
		{"mooncake sessions with delay", FormatMooncake,
			// a's second turn arrives 5 s after its first; b starts with the row before it (t=0).
			`{"session_id": "a", "input_length": 10, "output_length": 1, "hash_ids": [1]}` + "\n" +
				`{"session_id": "a", "delay": 5000, "input_length": 20, "output_length": 1, "hash_ids": [1]}` + "\n" +
				`{"session_id": 7, "input_length": 3, "output_length": 2}` + "\n",
			ReadOptions{BlockSize: 32},
			[]Request{{ID: "1", Session: "a", BlockIDs: []uint64{1}, BlockSize: 32, InputTokens: 10, OutputTokens: 1},
				{ID: "3", Session: "7", InputTokens: 3, OutputTokens: 2},
				{ID: "2", Session: "a", Turn: 1, Arrival: 5 * time.Second, BlockIDs: []uint64{1}, BlockSize: 32, InputTokens: 20, OutputTokens: 1}}},
		{"vtc", FormatVTC,
			`{"req_id": 0, "timestamp_s": 0.0, "client": "c1", "input_length": 13, "output_length": 199}` + "\n" +
				`{"req_id": 1, "timestamp_s": 0.25, "client": "c2", "input_length": 36, "output_length": 137}`,
			ReadOptions{},
			[]Request{{ID: "0", User: "c1", InputTokens: 13, OutputTokens: 199},
				{ID: "1", Arrival: 250 * time.Millisecond, User: "c2", InputTokens: 36, OutputTokens: 137}}},
		{"azure", FormatAzure,
			"TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:17:03.9799600,4808,10\r\n2023-11-16 18:17:04.0319600,3180,8\r\n",
			ReadOptions{},
			[]Request{{ID: "2", InputTokens: 4808, OutputTokens: 10},
				{ID: "3", Arrival: 52 * time.Millisecond, InputTokens: 3180, OutputTokens: 8}}},
		{"burstgpt", FormatBurstGPT,
			"Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n45.5,GPT-4,1087,0,1087,API log\n",
			ReadOptions{},
			[]Request{{ID: "2", InputTokens: 472, OutputTokens: 18},
				{ID: "3", Arrival: 40500 * time.Millisecond, InputTokens: 1087}}},
		{"burstgpt with session", FormatBurstGPT,
			"Timestamp,Session ID,Model,Request tokens,Response tokens,Total tokens,Log Type\n1.5,s9,ChatGPT,10,20,30,Conversation log\n",
			ReadOptions{},
			[]Request{{ID: "2", Session: "s9", InputTokens: 10, OutputTokens: 20}}},
		{"burstgpt with SessionID", FormatBurstGPT,
			"Timestamp,SessionID,Model,Request tokens,Response tokens,Total tokens,Log Type,Elapsed time\n2,s3,GPT-4,10,20,30,API log,1.5\n",
			ReadOptions{},
			[]Request{{ID: "2", Session: "s3", InputTokens: 10, OutputTokens: 20}}},
		{"native", FormatNative,
			`{"id":"x","arrival_ns":5,"user":"u","prompt":"a b c","input_tokens":3,"output_tokens":2}` + "\n",
			ReadOptions{},
			[]Request{{ID: "x", User: "u", Prompt: "a b c", InputTokens: 3, OutputTokens: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, format := range []string{tc.format, FormatAuto} {
				tc.opt.Format = format
				got, fs, err := readString(t, tc.text, tc.opt)
				if err != nil {
					t.Fatalf("format %s: %v", format, err)
				}
				if fs.Format() != tc.format {
					t.Errorf("format %s: Format() = %s, want %s", format, fs.Format(), tc.format)
				}
				if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("format %s: requests (-want +got):\n%s", format, d)
				}
			}
		})
	}
}

func TestShareGPTSessions(t *testing.T) {
	text := `[
 {"id": "c1", "conversations": [
   {"from": "human", "value": "hello there"},
   {"from": "gpt", "value": "hi how are you"},
   {"from": "human", "value": "fine"}]},
 {"id": "c2", "conversations": [{"from": "human", "value": "one two three"}]}
]`
	got, _, err := readString(t, text, ReadOptions{ThinkTime: 3 * time.Second, SessionGap: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h1 := Message{Role: "user", Content: "hello there"}
	a1 := Message{Role: "assistant", Content: "hi how are you"}
	h2 := Message{Role: "user", Content: "fine"}
	want := []Request{
		// c1 turn 0 at 0 s asks for the 4-word answer; c2 starts at 2 s; c1 turn 1 at 3 s.
		{ID: "c1/0", Session: "c1", Messages: []Message{h1}, InputTokens: 2, OutputTokens: 4},
		{ID: "c2/0", Session: "c2", Arrival: 2 * time.Second, Messages: []Message{{Role: "user", Content: "one two three"}},
			InputTokens: 3, OutputTokens: DefaultShareGPTOutput},
		{ID: "c1/1", Session: "c1", Turn: 1, Arrival: 3 * time.Second, Messages: []Message{h1, a1, h2},
			InputTokens: 7, OutputTokens: DefaultShareGPTOutput},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if p0, p1 := PromptText(&got[0]), PromptText(&got[2]); p1 != "hello there\nhi how are you\nfine" || !strings.HasPrefix(p1, p0+"\n") {
		t.Errorf("turn 1 prompt %q does not extend turn 0 prompt %q", p1, p0)
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name, text, want string
		good             int // valid records around the bad one
	}{
		{"native missing arrival", `{"arrival_ns":1,"output_tokens":1}` + "\n" + `{"output_tokens":1}`, "line 2 field arrival_ns: missing", 1},
		{"native bad type", `{"arrival_ns":"x","output_tokens":1}` + "\n" + `{"arrival_ns":1,"output_tokens":1}`, "line 1 field arrival_ns", 1},
		{"native negative output", `{"arrival_ns":1,"output_tokens":-1}`, "line 1 field output_tokens: negative", 0},
		{"native bad role", `{"arrival_ns":1,"output_tokens":1,"messages":[{"role":"bot","content":"x"}]}`, "line 1 field messages[0].role", 0},
		{"native bad json", `{"arrival_ns":1,"output_tokens":1}` + "\n" + `{"arrival_ns":` + "\n" + `{"arrival_ns":2,"output_tokens":1}`, "line 2: invalid JSON", 2},
		{"mooncake hash count", `{"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [0]}`, "line 1 field hash_ids: 1 ids for input_length 1000 at block size 512, want 2", 0},
		{"mooncake missing input", `{"timestamp": 0, "output_length": 5, "hash_ids": [0]}`, "line 1 field input_length: missing", 0},
		{"mooncake out of order", `{"timestamp": 10, "input_length": 1, "output_length": 5, "hash_ids": [0]}` + "\n" + `{"timestamp": 5, "input_length": 1, "output_length": 5, "hash_ids": [0]}`, "line 2 field timestamp", 1},
		{"vtc missing client", `{"timestamp_s": 0, "client": "a", "input_length": 1, "output_length": 2}` + "\n" + `{"timestamp_s": 1, "input_length": 1, "output_length": 2}`, "line 2 field client: missing", 1},
		{"vtc negative time", `{"timestamp_s": -1, "client": "a", "input_length": 1, "output_length": 2}`, "line 1 field timestamp_s", 0},
		{"azure bad time", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.97,1,2\n2023-11-16 18-17,1,2\n", "line 3 field TIMESTAMP", 1},
		{"azure bad count", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.97,x,2\n", "line 2 field ContextTokens: want an integer", 0},
		{"azure out of order", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.97,1,2\n2023-11-16 18:17:02.97,1,2\n", "line 3 field TIMESTAMP", 1},
		{"burstgpt missing column", "Timestamp,Model,Request tokens,Response tokens\n1,ChatGPT,5\n", "line 2 field Response tokens: missing", 0},
		{"burstgpt bad time", "Timestamp,Model,Request tokens,Response tokens\nsoon,ChatGPT,5,6\n2,ChatGPT,5,6\n", "line 2 field Timestamp", 1},
		{"azure count above the limit", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.97,48E8,2\n2023-11-16 18:17:04.97,1,2\n", "line 2 field ContextTokens: 48E8 tokens, above the limit of 16777216", 1},
		{"burstgpt count above the limit", "Timestamp,Model,Request tokens,Response tokens\n1,ChatGPT,5,99999999\n", "line 2 field Response tokens: 99999999 tokens, above the limit", 0},
		{"vtc count above the limit", `{"timestamp_s": 0, "client": "a", "input_length": 4000000000, "output_length": 2}`, "line 1 field input_length: 4000000000 tokens, above the limit", 0},
		{"mooncake count above the limit", `{"timestamp": 0, "input_length": 1, "output_length": 20000000}`, "line 1 field output_length: 20000000 tokens, above the limit", 0},
		{"native count above the limit", `{"arrival_ns":1,"input_tokens":16777217,"output_tokens":1}`, "line 1 field input_tokens: 16777217 tokens, above the limit", 0},
		{"native blocks above the limit", `{"arrival_ns":1,"output_tokens":1,"block_ids":[1,2],"block_size":16777216}`, "line 1 field block_ids: 2 blocks of 16777216 tokens", 0},
		{"native block size above the limit", `{"arrival_ns":1,"output_tokens":1,"block_size":16777217}`, "line 1 field block_size", 0},
		{"sharegpt bad speaker", `[{"id":"a","conversations":[{"from":"human","value":"x"}]},` + "\n" + `{"id":"b","conversations":[{"from":"robot","value":"x"}]}]`, "line 2 field conversations[0].from", 1},
		{"sharegpt bad type", `[{"id":"a","conversations":[{"from":"human","value":5}]},` + "\n" + ` {"id":"b","conversations":[{"from":"human","value":"x"}]}]`, "line 1 field conversations.value", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readString(t, tc.text, ReadOptions{})
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "read trace t.trace "+tc.want) {
				t.Fatalf("error = %v, want a ParseError containing %q", err, "read trace t.trace "+tc.want)
			}
			got, fs, err := readString(t, tc.text, ReadOptions{SkipInvalid: true})
			if tc.name == "native bad json" {
				// the line after the bad one is still read: JSONL framing survives.
				if err != nil || len(got) != tc.good || fs.Skipped() != 1 {
					t.Fatalf("skip: %d requests, %d skipped, err %v", len(got), fs.Skipped(), err)
				}
				return
			}
			if err != nil || len(got) != tc.good || fs.Skipped() != 1 {
				t.Fatalf("skip: %d requests (want %d), %d skipped (want 1), err %v", len(got), tc.good, fs.Skipped(), err)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"native", `{"id":"1","arrival_ns":0,"input_tokens":3,"output_tokens":1}`, FormatNative},
		{"mooncake", `{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0]}`, FormatMooncake},
		{"mooncake sessions", `{"session_id": "a", "input_length": 6, "output_length": 5}`, FormatMooncake},
		{"vtc", `{"req_id": 0, "timestamp_s": 0.0, "client": "x", "input_length": 13, "output_length": 199}`, FormatVTC},
		{"azure", "TIMESTAMP,ContextTokens,GeneratedTokens\n", FormatAzure},
		{"burstgpt", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n", FormatBurstGPT},
		{"sharegpt", "\n  [{\"id\": \"x\", \"conversations\": []}]", FormatShareGPT},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := NewReader(strings.NewReader(tc.text), "t", ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if fs.Format() != tc.want {
				t.Errorf("detected %s, want %s", fs.Format(), tc.want)
			}
		})
	}
	for _, bad := range []string{"", "hello,world\n1,2\n"} {
		if _, err := NewReader(strings.NewReader(bad), "t", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "ReadOptions.Format") {
			t.Errorf("detect %q: error %v, want one suggesting ReadOptions.Format", bad, err)
		}
	}
	if _, err := NewReader(strings.NewReader("{}"), "t", ReadOptions{Format: "parquet"}); err == nil || !strings.Contains(err.Error(), `unknown format "parquet"`) {
		t.Errorf("unknown format: error %v", err)
	}
}

func TestOpenMissingFile(t *testing.T) {
	_, err := Open("testdata/does-not-exist.jsonl", ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "does-not-exist") {
		t.Fatalf("error = %v", err)
	}
}

func TestNativeRoundTrip(t *testing.T) {
	in := []Request{
		{ID: "a", User: "u", Session: "s", Turn: 2, Model: "m", LoRA: "l", Prompt: "p q",
			Messages: []Message{{Role: "system", Content: "x"}, {Role: "user", Content: "y"}}, InputTokens: 2, OutputTokens: 9},
		{ID: "b", Arrival: 3, BlockIDs: []uint64{1, 1 << 63}, BlockSize: 16, TokenIDs: []int{5, 6}, InputTokens: 20, OutputTokens: 1},
	}
	var b strings.Builder
	n, err := WriteNative(&b, NewSliceSource(in))
	if err != nil || n != 2 {
		t.Fatalf("WriteNative = %d, %v", n, err)
	}
	got, _, err := readString(t, b.String(), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// errSource fails after its requests.
type errSource struct{ n int }

func (e *errSource) Next() (Request, error) {
	if e.n == 0 {
		return Request{}, io.ErrUnexpectedEOF
	}
	e.n--
	return Request{ID: "x"}, nil
}

func TestWriteNativeSourceError(t *testing.T) {
	var b strings.Builder
	n, err := WriteNative(&b, &errSource{n: 2})
	if n != 2 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("WriteNative = %d, %v", n, err)
	}
	if strings.Count(b.String(), "\n") != 2 {
		t.Errorf("wrote %q, want the 2 good lines flushed", b.String())
	}
}

func TestMergerOrder(t *testing.T) {
	var m merger
	for i, a := range []time.Duration{5, 1, 5, 3, 1} {
		m.push(Request{ID: string(rune('a' + i)), Arrival: a})
	}
	if _, ok := m.popUpTo(0); ok {
		t.Fatal("popped a Request arriving after the bound")
	}
	var ids string
	for r, ok := m.popUpTo(3); ok; r, ok = m.popUpTo(3) {
		ids += r.ID
	}
	for r, ok := m.pop(); ok; r, ok = m.pop() {
		ids += r.ID
	}
	// By arrival, ties in push order: b(1) e(1) d(3) | a(5) c(5).
	if ids != "bedac" {
		t.Errorf("order %q, want bedac", ids)
	}
}

func TestCSVHeaderMissingColumnIsFatal(t *testing.T) {
	text := "time,in,out\n1,2,3\n"
	for _, skip := range []bool{false, true} {
		_, _, err := readString(t, text, ReadOptions{Format: FormatAzure, SkipInvalid: skip})
		if err == nil || !strings.Contains(err.Error(), "read trace t.trace: line 1 field TIMESTAMP: column missing") {
			t.Errorf("skip %v: error %v", skip, err)
		}
	}
}
