package calibrate

import (
	"math"
	"testing"

	"github.com/tracebench/tracebench/results"
)

func TestGapCV(t *testing.T) {
	for _, tc := range []struct {
		name string
		bins []results.GapBin
		want float64
	}{
		{"too few", []results.GapBin{{V: 9000, N: 5}}, -1},
		{"constant", []results.GapBin{{V: 9000, N: 20}}, 0},
		// Median 10,000, MAD 1,000: 1.4826 × 1,000 / 10,000, less the
		// rounding of 1,000-wide bins (σ² − 1000²/12).
		{"spread", []results.GapBin{{V: 9000, N: 10}, {V: 10000, N: 11}, {V: 11000, N: 10}},
			math.Sqrt(1482.6*1482.6-1e6/12) / 10000},
		// A long step (another prompt) does not move a robust CV.
		{"outlier", []results.GapBin{{V: 10000, N: 30}, {V: 200000, N: 1}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := gapCV(tc.bins); math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("gapCV = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAttentionKeys(t *testing.T) {
	// 100 prompt tokens, 60 cached: 40 computed at positions 61..100.
	q := request{prompt: 100, computed: 40, first: 1, done: 2, out: 11}
	if got, want := prefillKeys(q), 40*60+40*41/2.0; got != want {
		t.Fatalf("prefillKeys = %v, want %v", got, want)
	}
	// Tokens 1 at first, 2..11 evenly to done: by 1.5, 6 generated.
	if got := generatedBy(q, 1.5); got != 6 {
		t.Fatalf("generatedBy(1.5) = %v, want 6", got)
	}
	// Over the whole decode, 10 tokens at contexts 101..110 on average
	// (prompt + the mean of 1 and 11).
	if got, want := decodeKeys(q, 1, 2), 10*(100+6.0); got != want {
		t.Fatalf("decodeKeys = %v, want %v", got, want)
	}
}

// TestDecodeRowBatch: two requests decoding side by side give a window
// whose batch is 2 while both run and 1 after.
func TestDecodeRowBatch(t *testing.T) {
	tl := &timeline{reqs: []request{
		{sent: 0, first: 0.1, done: 1.1, prompt: 10, computed: 10, out: 101},
		{sent: 0, first: 0.1, done: 0.6, prompt: 10, computed: 10, out: 51},
	}}
	for _, q := range tl.reqs {
		tl.maxSpan, tl.maxWait = max(tl.maxSpan, q.done-q.first), max(tl.maxWait, q.first-q.sent)
	}
	r, ok := tl.decodeRow(0, stepModel{})
	if !ok {
		t.Fatal("no row")
	}
	// 100 steps over 1 s; the other request is in the batch from 0.09 s
	// (one step before its first token) to 0.6 s: half the window.
	if b := r.x[colDecode]; math.Abs(b-1.5) > 0.02 {
		t.Fatalf("mean batch %v, want about 1.5", b)
	}
	if math.Abs(r.y-0.01) > 1e-12 || r.x[colBeta] != 1 {
		t.Fatalf("row %+v: want a mean step of 10 ms", r)
	}
}
