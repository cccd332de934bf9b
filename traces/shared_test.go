package traces

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// sharedTraces is ../shared/traces relative to the repository root.
var sharedTraces = filepath.Join("..", "..", "shared", "traces")

// sharedTrace returns the path of a shared trace, skipping the test when
// the shared directory is absent.
func sharedTrace(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(sharedTraces, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared trace %s not present (%v): the public traces live in ../shared/traces beside the repository", p, err)
	}
	return p
}

// TestSharedTraceStats checks Stats against the statistics table of
// ../shared/traces/README.md (rounded as the table rounds them).
func TestSharedTraceStats(t *testing.T) {
	tests := []struct {
		file, format        string
		requests, users     int
		spanMin, rate       float64 // minutes to 0.1 (or whole minutes when wholeMin), req/s to 0.01
		wholeMin            bool
		inMean, outMean     float64 // the table's figures
		inDigits, outDigits int     // decimals the table gives
		seen, hit           float64 // percent to 0.1; 0 = not a block trace
	}{
		{"mooncake/conversation_trace.jsonl", FormatMooncake, 12031, 0, 58.9, 3.40, false, 12035, 342.6, 0, 1, 36.6, 37.4},
		{"azure2023/AzureLLMInferenceTrace_code.csv", FormatAzure, 8819, 0, 57, 2.57, true, 2048, 27.9, 0, 1, 0, 0},
		{"azure2023/AzureLLMInferenceTrace_conv.csv", FormatAzure, 19366, 0, 58, 5.53, true, 1155, 211.1, 0, 1, 0, 0},
		{"vtc_lmsys_arena/real_trace.jsonl", FormatVTC, 1500, 27, 10, 2.50, false, 136.3, 256.2, 1, 1, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			fs, err := Open(sharedTrace(t, tc.file), ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			st, err := Stats(fs)
			if err != nil {
				t.Fatal(err)
			}
			if fs.Format() != tc.format {
				t.Errorf("format %s, want %s", fs.Format(), tc.format)
			}
			if st.Requests != tc.requests || st.Users != tc.users {
				t.Errorf("requests %d users %d, want %d and %d", st.Requests, st.Users, tc.requests, tc.users)
			}
			spanDigits := 1
			if tc.wholeMin {
				spanDigits = 0
			}
			checkRounded(t, "span (min)", st.Span.Minutes(), tc.spanMin, spanDigits)
			checkRounded(t, "rate", st.Rate, tc.rate, 2)
			checkRounded(t, "mean input", st.Input.Mean, tc.inMean, tc.inDigits)
			checkRounded(t, "mean output", st.Output.Mean, tc.outMean, tc.outDigits)
			if tc.seen == 0 {
				if st.Blocks != nil {
					t.Errorf("block stats %+v on a trace without block ids", st.Blocks)
				}
				return
			}
			checkRounded(t, "blocks seen before (%)", 100*st.Blocks.SeenShare, tc.seen, 1)
			checkRounded(t, "infinite-cache hit rate (%)", 100*st.Blocks.HitRate, tc.hit, 1)
			if st.Blocks.LeadingShare != 1 {
				t.Errorf("leading share %v: the README says every reused block is a leading prefix", st.Blocks.LeadingShare)
			}
		})
	}
}

// checkRounded compares got, rounded to digits decimals, with want.
func checkRounded(t *testing.T, what string, got, want float64, digits int) {
	t.Helper()
	p := math.Pow(10, float64(digits))
	if math.Round(got*p) != math.Round(want*p) {
		t.Errorf("%s = %.4f, rounds to %.*f, want %.*f", what, got, digits, math.Round(got*p)/p, digits, want)
	}
}

func TestSharedShareGPT(t *testing.T) {
	fs, err := Open(sharedTrace(t, "sharegpt/ShareGPT_V3_filtered_500.json"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	st, err := Stats(fs)
	if err != nil {
		t.Fatal(err)
	}
	// 500 conversations of one human turn each, one second apart.
	if st.Requests != 500 || st.Sessions != 500 || st.MaxTurns != 1 || st.Span != 499*time.Second {
		t.Errorf("stats %+v, want 500 one-turn sessions over 499 s", st)
	}
}
