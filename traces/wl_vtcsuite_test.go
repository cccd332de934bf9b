package traces

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestVTCSuiteCounts works each suite's request counts out by hand:
// rate × duration per user, and for the on-off user only the requests
// that fall in its even minutes (half, give or take the one at the edge
// of each minute).
func TestVTCSuiteCounts(t *testing.T) {
	tests := []struct {
		suite  string
		counts map[string][2]int // user -> [lo, hi]
		end    time.Duration     // every arrival before this
	}{
		// 1.5 × 360 = 540, 3 × 360 = 1080
		{"overload", map[string][2]int{"u0": {540, 540}, "u1": {1080, 1080}}, 361 * time.Second},
		// 0.4 × 360 = 144 (u0..u2), 0.6 × 360 = 216 (u3..u7)
		{"overload-multi", map[string][2]int{"u0": {144, 144}, "u2": {144, 144}, "u3": {216, 216}, "u7": {216, 216}}, 363 * time.Second},
		// u0: 2 × 600 = 1200 drawn, those in odd minutes dropped: about 600
		{"on-off-overload", map[string][2]int{"u0": {595, 605}, "u1": {1800, 1800}}, 601 * time.Second},
		// u0: 150 on-off (about 75) + 300 + 150; u1: 600 + 300 + 450
		{"dist-shift", map[string][2]int{"u0": {515, 545}, "u1": {1350, 1350}}, 901 * time.Second},
		{"overload-weighted", map[string][2]int{"u0": {360, 360}, "u3": {360, 360}}, 361 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.suite, func(t *testing.T) {
			src, err := newTextWorkload("vtc-suite", map[string]string{"suite": tc.suite}, 1)
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			var last time.Duration
			for {
				r, err := src.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if r.Arrival < last || r.InputTokens != 256 || r.OutputTokens != 256 {
					t.Fatalf("request %s at %v (after %v), %d in / %d out", r.ID, r.Arrival, last, r.InputTokens, r.OutputTokens)
				}
				last = r.Arrival
				counts[r.User]++
			}
			for u, b := range tc.counts {
				if counts[u] < b[0] || counts[u] > b[1] {
					t.Errorf("%s sent %d requests, want %d..%d", u, counts[u], b[0], b[1])
				}
			}
			if last >= tc.end {
				t.Errorf("last arrival %v, want before %v", last, tc.end)
			}
		})
	}
	if _, err := newTextWorkload("vtc-suite", map[string]string{"suite": "nope"}, 1); err == nil || !strings.Contains(err.Error(), "suite") {
		t.Errorf("unknown suite: error %v, want one naming the suite parameter", err)
	}
}
