package policies

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"0.010", 10 * time.Millisecond, false}, // the seed's D_SLA, in seconds
		{"10ms", 10 * time.Millisecond, false},
		{" 1.5 ", 1500 * time.Millisecond, false},
		{"0", 0, false},
		{"-1", 0, true},
		{"-5ms", 0, true},
		{"NaN", 0, true},
		{"fast", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSeconds(tc.in)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("parseSeconds(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestParseIntList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  string
	}{
		{"42,80,167", []int{42, 80, 167}, ""},
		{" 1 , 2 ", []int{1, 2}, ""},
		{"", nil, ""},
		{"none", nil, ""},
		{"auto", nil, ""},
		{"1,,2", nil, "item 2"},
		{"1,0", nil, "item 2 is 0, outside [1, 1000]"},
		{"x", nil, "item 1"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseIntList(tc.in, 1, 1000)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseWeights(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]float64
		err  string
	}{
		{"alice=2,bob=0.5", map[string]float64{"alice": 2, "bob": 0.5}, ""},
		{"", map[string]float64{}, ""},
		{"none", map[string]float64{}, ""},
		{"alice", nil, "not user=weight"},
		{"=2", nil, "not user=weight"},
		{"alice=0", nil, "weight \"0\""},
		{"a=1,a=2", nil, "given twice"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseWeights(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// FuzzQueueParamLists checks that the list, weight and seconds parsers
// never panic and that what they accept is within the stated bounds.
func FuzzQueueParamLists(f *testing.F) {
	for _, s := range []string{"42,80,167", "alice=2,bob=1", "0.010", "10ms", "", ",", "=", "1e309"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := parseIntList(s, 1, 9999); err == nil {
			for _, x := range v {
				if x < 1 || x > 9999 {
					t.Fatalf("parseIntList(%q) accepted %d", s, x)
				}
			}
		}
		if w, err := parseWeights(s); err == nil {
			for u, x := range w {
				if u == "" || !(x > 0) {
					t.Fatalf("parseWeights(%q) accepted %q=%g", s, u, x)
				}
			}
		}
		if d, err := parseSeconds(s); err == nil && d < 0 {
			t.Fatalf("parseSeconds(%q) = %v", s, d)
		}
	})
}
