package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStatsBlocks(t *testing.T) {
	// Block size 4. r1: [1 2] 8 tokens, nothing seen.
	// r2: [1 2 3] 10 tokens: 2 leading blocks seen → 8 hit tokens.
	// r3: [1 5 2] 6 tokens: block 1 leads (4 hit tokens); 2 is seen but not leading.
	// Blocks 2+3+3 = 8, seen 2+2 = 4, leading 2+1 = 3; hit 8+4 = 12 of 24 tokens.
	reqs := []Request{
		{ID: "1", Arrival: 0, User: "a", Session: "s", BlockIDs: []uint64{1, 2}, BlockSize: 4, InputTokens: 8, OutputTokens: 1},
		{ID: "2", Arrival: 2 * time.Second, User: "b", Session: "s", Turn: 1, BlockIDs: []uint64{1, 2, 3}, BlockSize: 4, InputTokens: 10, OutputTokens: 3},
		{ID: "3", Arrival: 4 * time.Second, User: "a", BlockIDs: []uint64{1, 5, 2}, BlockSize: 4, InputTokens: 6, OutputTokens: 2},
		{ID: "4", Arrival: 4 * time.Second, InputTokens: 100, OutputTokens: 10},
	}
	st, err := Stats(NewSliceSource(reqs))
	if err != nil {
		t.Fatal(err)
	}
	want := TraceStats{
		Requests: 4, Span: 4 * time.Second, Rate: 1,
		Input:  LengthStats{Mean: 31, P50: 8, P90: 100, P99: 100, Max: 100, Total: 124},
		Output: LengthStats{Mean: 4, P50: 2, P90: 10, P99: 10, Max: 10, Total: 16},
		Users:  2, Sessions: 1, MaxTurns: 2,
		Blocks: &BlockStats{Requests: 3, Blocks: 8, Seen: 4, LeadingSeen: 3, SeenShare: 0.5, LeadingShare: 0.75,
			HitTokens: 12, InputTokens: 24, HitRate: 0.5,
			// r2 resends r1's two blocks in session s: 8 tokens of 24.
			SessionSeen: 2, SessionHitTokens: 8, SessionHitRate: 1.0 / 3},
	}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
}

func TestStatsEmpty(t *testing.T) {
	st, err := Stats(NewSliceSource(nil))
	if err != nil || !cmp.Equal(st, TraceStats{}) {
		t.Errorf("Stats(empty) = %+v, %v", st, err)
	}
}

func TestWriteStatsGolden(t *testing.T) {
	st := TraceStats{Requests: 12031, Span: 3537 * time.Second, Rate: 3.4014, Users: 3, Sessions: 2, MaxTurns: 4,
		Input:  LengthStats{Mean: 12035.06, P50: 6909, P90: 27367, P99: 85401, Max: 126195},
		Output: LengthStats{Mean: 342.64, P50: 350, P90: 597, P99: 1120, Max: 2000},
		Blocks: &BlockStats{Requests: 12031, Blocks: 288500, SeenShare: 0.3664, LeadingShare: 1, HitRate: 0.37362,
			HitTokens: 54098411, InputTokens: 144793823, SessionHitRate: 0.3}}
	var b bytes.Buffer
	if err := WriteStats(&b, "t.jsonl (mooncake)", st, 2); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "stats.golden.txt")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), b.String()); d != "" {
		t.Errorf("stats table (-want +got):\n%s", d)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %s, want %s", n, got, want)
		}
	}
	if got := meanText(2.96); got != "3.0" {
		t.Errorf("meanText(2.96) = %s", got)
	}
}
