package replay

import (
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/results"
)

func TestParseLoadAvg(t *testing.T) {
	for _, tc := range []struct {
		text, err string
		want      float64
	}{
		{"0.52 0.58 0.59 1/467 12345\n", "", 0.52},
		{"24.10 7.00 2.00 9/82 1", "", 24.1},
		{"0 0 0 0/0 0", "", 0},
		{"", "empty", 0},
		{"abc 1 1", "1-minute field", 0},
		{"-1 0 0", "want a finite number", 0},
		{"NaN 0 0", "want a finite number", 0},
		{"+Inf 0 0", "want a finite number", 0},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := parseLoadAvg(tc.text)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			case tc.err == "" && (err != nil || got != tc.want):
				t.Fatalf("parseLoadAvg = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestLoadExtra: the stop carries the load and the CPUs it is read
// against.
func TestLoadExtra(t *testing.T) {
	x := loadExtra(3.5)
	if x[results.ExtraHostLoad1] != 3.5 || x[results.ExtraHostCPUs] < 1 {
		t.Fatalf("loadExtra(3.5) = %v: want host_load1 3.5 and host_cpus ≥ 1", x)
	}
}

// FuzzLoadAvg feeds arbitrary text to the /proc/loadavg parser: it must
// not panic and must return a finite load ≥ 0 or an error with 0.
func FuzzLoadAvg(f *testing.F) {
	f.Add("0.52 0.58 0.59 1/467 12345\n")
	f.Add("1e400 0 0")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		v, err := parseLoadAvg(text)
		if err != nil && v != 0 || err == nil && (v < 0 || math.IsInf(v, 0) || math.IsNaN(v)) {
			t.Fatalf("parseLoadAvg(%q) = %v, %v", text, v, err)
		}
	})
}
