package traces

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestBailian(t *testing.T) {
	fs, err := Open("testdata/bailian.jsonl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	got, err := ReadAll(fs)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Format() != FormatBailian {
		t.Errorf("detected %s", fs.Format())
	}
	// Times in seconds from 61.114 (the origin); 16 tokens per hash id;
	// sessions are the root chat_id, followed through parents.
	want := []Request{
		{ID: "159", Session: "159", BlockIDs: []uint64{11, 12, 13}, BlockSize: 16, InputTokens: 40, OutputTokens: 13},
		{ID: "160", Session: "159", Turn: 1, Arrival: 1386 * time.Millisecond, BlockIDs: []uint64{11, 12, 13, 14, 15}, BlockSize: 16, InputTokens: 70, OutputTokens: 8},
		{ID: "161", Session: "161", Arrival: 1886 * time.Millisecond, BlockIDs: []uint64{21}, BlockSize: 16, InputTokens: 16, OutputTokens: 4},
		{ID: "162", Session: "159", Turn: 2, Arrival: 3136 * time.Millisecond, BlockIDs: []uint64{11, 12, 13, 14, 15, 16}, BlockSize: 16, InputTokens: 90, OutputTokens: 5},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.EquateApproxTime(0)); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if o, _ := fs.Origin(); o != 61114*time.Millisecond {
		t.Errorf("origin %v", o)
	}
}

func TestRAGPulse(t *testing.T) {
	fs, err := Open("testdata/ragpulse/0_trace.jsonl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	rs, err := ReadAll(fs)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Format() != FormatRAGPulse || len(rs) != 3 {
		t.Fatalf("format %s, %d requests", fs.Format(), len(rs))
	}
	for i, want := range []struct {
		at      time.Duration
		in, out int
		session string
	}{{0, 40, 12, "1757476916095-afhwfadnh5ew"}, {11 * time.Second, 38, 7, "1757476927914-jvmj2r9c8b5g"}, {43 * time.Second, 30, 9, "1757476916095-afhwfadnh5ew"}} {
		r := rs[i]
		if r.Arrival != want.at || r.InputTokens != want.in || r.OutputTokens != want.out || r.Session != want.session || len(r.TokenIDs) != want.in {
			t.Errorf("request %d: %+v", i, r)
		}
	}
	a, b, c := rs[0].TokenIDs, rs[1].TokenIDs, rs[2].TokenIDs
	// Shared system prompt [8302 (8), 8303 (4)]: 12 equal leading tokens,
	// then other passages.
	if !slices.Equal(a[:12], b[:12]) || a[12] == b[12] {
		t.Errorf("requests 1 and 2 should share exactly 12 leading tokens")
	}
	// Only 8302 shared with request 3; passage 5 (6 tokens) recurs at
	// another offset with the same tokens.
	if !slices.Equal(a[:8], c[:8]) || a[8] == c[8] || !slices.Equal(a[12:18], c[11:17]) {
		t.Errorf("segments of requests 1 and 3 not rendered token-exact")
	}
}

func TestNewFormatErrors(t *testing.T) {
	seg := ReadOptions{SegmentDir: "testdata/ragpulse"}
	tests := []struct {
		name, text string
		opt        ReadOptions
		want       string
	}{
		{"bailian chat_id", `{"chat_id": [1], "timestamp": 1, "input_length": 1, "output_length": 1}`, ReadOptions{},
			"t.trace line 1 field chat_id: want a string or number"},
		{"bailian hash count", `{"chat_id": 1, "timestamp": 1, "input_length": 40, "output_length": 1, "hash_ids": [1]}`, ReadOptions{},
			"line 1 field hash_ids: 1 ids for input_length 40 at block size 16, want 3"},
		{"bailian time", `{"chat_id": 1, "timestamp": -3, "input_length": 1, "output_length": 1}`, ReadOptions{},
			"field timestamp: time -3 s out of range"},
		{"ragpulse unknown id", `{"timestamp": "1", "input_length": 5, "output_length": 1, "hash_ids": {"sys_prompt": [99], "user_input": []}}`, seg,
			"line 1 field hash_ids.sys_prompt: id 99 has no token length in the segment files"},
		{"ragpulse unknown segment", `{"timestamp": "1", "input_length": 5, "output_length": 1, "hash_ids": {"sys_prompt": [], "images": [1]}}`, seg,
			"field hash_ids.images: unknown segment"},
		{"ragpulse timestamp", `{"timestamp": "noon", "input_length": 5, "output_length": 1, "hash_ids": {"sys_prompt": []}}`, seg,
			"field timestamp: want seconds as a number or string"},
		{"ragpulse no segment files", `{"timestamp": "1", "input_length": 5, "output_length": 1, "hash_ids": {"sys_prompt": []}}`, ReadOptions{SegmentDir: "testdata/fuzz"},
			"no segment files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readString(t, tc.text+"\n", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRAGPulseSegmentFileError checks a bad segment file line names the
// file, line and field.
func TestRAGPulseSegmentFileError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "2_passages.jsonl"), []byte(`{"passage_id": 1, "token_length": 3}`+"\n"+`{"passage_id": 2, "token_length": "x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadRAGPulseSegments(dir)
	want := "read trace " + filepath.Join(dir, "2_passages.jsonl") + " line 2 field token_length: want int"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
