package traces

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// FuzzAgentic reads any bytes as an agentic session, plain and scaled and
// capped, failing and skipping, and checks what the reader promises: no
// panic, arrivals never decreasing, lengths in [0, MaxTokens], every
// After naming a Request yielded before, errors naming the file and a
// line or an entry, and with SkipInvalid no record error at all.
func FuzzAgentic(f *testing.F) {
	seed, err := os.ReadFile("testdata/agentic/session.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"id": "s", "requests": [{"t": 0, "in": 100, "out": 1, "hash_ids": [1]}, {"t": 1, "type": "subagent", "agent_id": "a", "requests": []}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []AgenticOptions{{}, {Scale: 0.3, MaxInput: 100, Join: AgenticJoinNext}} {
			for _, skip := range []bool{false, true} {
				fuzzAgentic(t, data, ReadOptions{Format: FormatAgentic, SkipInvalid: skip, Agentic: opt})
			}
		}
	})
}

func fuzzAgentic(t *testing.T, data []byte, opt ReadOptions) {
	fs, err := NewReader(bytes.NewReader(data), "fuzz.json", opt)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	seen := map[string]bool{}
	var last Request
	for {
		r, err := fs.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			var pe *ParseError
			switch {
			case !strings.HasPrefix(err.Error(), "read trace fuzz.json"):
				t.Fatalf("error %q does not name the file", err)
			case errors.As(err, &pe) && opt.SkipInvalid:
				t.Fatalf("record error %q with SkipInvalid", err)
			case errors.As(err, &pe) && pe.Line < 1 && pe.Entry == "":
				t.Fatalf("error %q names neither a line nor an entry", err)
			}
			return
		}
		if r.Arrival < last.Arrival || r.InputTokens < 0 || r.OutputTokens < 0 || r.InputTokens > MaxTokens ||
			r.OutputTokens > MaxTokens || r.Think < 0 || len(r.BlockIDs)*blockSize(&r) > MaxTokens+blockSize(&r) {
			t.Fatalf("bad request %+v after %+v", r, last)
		}
		for _, id := range r.After {
			if !seen[id] {
				t.Fatalf("%s waits for %s, not yielded before", r.ID, id)
			}
		}
		seen[r.ID] = true
		last = r
	}
}
