package traces

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces/tokenizer"
)

// importFile imports a testdata log.
func importFile(t *testing.T, path string, opt ImportOptions) []Request {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := ReadAll(NewLogImport(f, path, opt))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestImportProxyLog(t *testing.T) {
	rs := importFile(t, "testdata/import/proxy.jsonl", ImportOptions{})
	if len(rs) != 3 {
		t.Fatalf("%d requests, want 3 (the healthcheck line is no request)", len(rs))
	}
	want := []struct {
		at                  time.Duration
		user, session       string
		in, out, blocks, bs int
	}{
		{0, "alice", "s1", 52, 41, 4, 16},                      // usage.completion_tokens wins over max_tokens
		{1750 * time.Millisecond, "bob", "", 52, 80, 4, 16},    // content parts; max_completion_tokens
		{5250 * time.Millisecond, "alice", "s1", 4, 12, 1, 16}, // Unix seconds, user_id, conversation_id, completions prompt
	}
	for i, w := range want {
		r := rs[i]
		if r.Arrival != w.at || r.User != w.user || r.Session != w.session || r.InputTokens != w.in ||
			r.OutputTokens != w.out || len(r.BlockIDs) != w.blocks || r.BlockSize != w.bs || r.Prompt != "" || r.Messages != nil || r.TokenIDs != nil {
			t.Errorf("request %d: %+v, want %+v", i, r, w)
		}
	}
	// The shared 47-word system prompt fills two whole 16-token blocks.
	if !slices.Equal(rs[0].BlockIDs[:2], rs[1].BlockIDs[:2]) || rs[0].BlockIDs[2] == rs[1].BlockIDs[2] {
		t.Errorf("block ids %v and %v: want the first two shared, the third not", rs[0].BlockIDs, rs[1].BlockIDs)
	}
}

func TestImportVLLMLog(t *testing.T) {
	opt := ImportOptions{Tokenizer: tokenizer.Character{}, BlockSize: 16}
	rs := importFile(t, "testdata/import/vllm.log", opt)
	if len(rs) != 3 {
		t.Fatalf("%d requests, want 3", len(rs))
	}
	if rs[0].ID != "chatcmpl-a1" || rs[0].InputTokens != 40 || rs[0].OutputTokens != 128 || rs[1].Arrival != 2500*time.Millisecond ||
		rs[1].OutputTokens != 16 || rs[2].InputTokens != 35 || rs[2].Arrival != 3*time.Second {
		t.Errorf("requests %+v", rs)
	}
	// The logged token ids are hashed as they are: b3 shares a1's first 32.
	if !slices.Equal(rs[0].BlockIDs[:2], rs[2].BlockIDs[:2]) || rs[0].BlockIDs[2] == rs[2].BlockIDs[2] {
		t.Errorf("block ids %v and %v", rs[0].BlockIDs, rs[2].BlockIDs)
	}
	// The text prompt "secret-word-kumquat it's here" in characters.
	if rs[1].InputTokens != len("secret-word-kumquat it's here") {
		t.Errorf("text prompt tokens %d", rs[1].InputTokens)
	}
}

// TestImportKeepsNoPromptText checks the written trace holds no word of
// any prompt.
func TestImportKeepsNoPromptText(t *testing.T) {
	for _, path := range []string{"testdata/import/proxy.jsonl", "testdata/import/vllm.log"} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, err = WriteNative(&b, NewLogImport(f, path, ImportOptions{}))
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"Zanzibar", "kumquat", "Pemba", "policy7", "1000, 1001"} {
			if strings.Contains(b.String(), secret) {
				t.Errorf("%s: the trace holds %q", path, secret)
			}
		}
		if _, err := ReadAll(mustReader(t, b.String())); err != nil {
			t.Errorf("%s: the trace does not read back: %v", path, err)
		}
	}
}

func mustReader(t *testing.T, text string) *FileSource {
	fs, err := NewReader(strings.NewReader(text), "import.jsonl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestImportErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"timestamp": "yesterday", "prompt": "a", "max_tokens": 1}`, "log line 1 field timestamp: want RFC 3339 or Unix seconds"},
		{`{"timestamp": 5, "prompt": "a"}`, "line 1 field max_tokens: output length unknown"},
		{`{"timestamp": 5, "prompt": {"x": 1}, "max_tokens": 1}`, "line 1 field prompt: want a string"},
		{`{"timestamp": 5, "messages": [{"role": "user", "content": 7}], "max_tokens": 1}`, "line 1 field messages[0].content"},
		{`{"timestamp": 9, "prompt": "a", "max_tokens": 1}` + "\n" + `{"timestamp": 5, "prompt": "a", "max_tokens": 1}`, "line 2 field timestamp: 1970-01-01T00:00:05Z before the previous request's"},
		{`INFO 03-01 10:00:01 [logger.py:39] Received request x: prompt: 'a', params: SamplingParams(n=1), prompt_token_ids: None`, "line 1 field max_tokens: missing from params"},
		{`Received request x: prompt: 'a', params: SamplingParams(max_tokens=3)`, "line 1 field timestamp: no MM-DD HH:MM:SS"},
	}
	for _, tc := range tests {
		_, err := ReadAll(NewLogImport(strings.NewReader(tc.text+"\n"), "log", ImportOptions{}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.50s: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestChainedBlockIDs(t *testing.T) {
	a := ChainedBlockIDs([]int{1, 2, 3, 4, 5}, 2)
	b := ChainedBlockIDs([]int{1, 2, 9, 4, 5}, 2)
	if len(a) != 3 || a[0] != b[0] || a[1] == b[1] || a[2] == b[2] {
		t.Errorf("ids %v %v: a change in block 2 must change it and every later id", a, b)
	}
}

func FuzzLogImport(f *testing.F) {
	for _, p := range []string{"testdata/import/proxy.jsonl", "testdata/import/vllm.log"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			imp := NewLogImport(bytes.NewReader(data), "fuzz.log", ImportOptions{SkipInvalid: skip})
			var last Request
			for n := 0; n < 1<<12; n++ {
				r, err := imp.Next()
				if err != nil {
					if err.Error() != "EOF" && !strings.Contains(err.Error(), "fuzz.log") {
						t.Fatalf("error %q does not name the log", err)
					}
					break
				}
				if r.Arrival < last.Arrival || r.InputTokens < 0 || r.InputTokens > MaxTokens || r.OutputTokens < 0 ||
					len(r.BlockIDs) != (r.InputTokens+r.BlockSize-1)/r.BlockSize {
					t.Fatalf("bad request %+v", r)
				}
				last = r
			}
		}
	})
}
