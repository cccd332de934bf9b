package plots

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracebench/tracebench/metrics"
)

func TestSITicks(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
		want   []string // labels of the labelled ticks
	}{
		{"hit rate 0-100", 0, 100, []string{"0", "20", "40", "60", "80", "100"}},
		{"goodput 0-2.7", 0, 2.7, []string{"0", "0.5", "1", "1.5", "2", "2.5"}},
		{"service 0-28k", 0, 28000, []string{"0", "5k", "10k", "15k", "20k", "25k"}},
		{"offered 0.6-3.4", 0.6, 3.4, []string{"1", "1.5", "2", "2.5", "3"}},
		{"in flight 0-36", 0, 36, []string{"0", "10", "20", "30"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			ticks := siTicks{}.Ticks(tc.lo, tc.hi)
			for _, tk := range ticks {
				if tk.Value < tc.lo || tk.Value > tc.hi*(1+1e-9) {
					t.Errorf("tick %v outside [%v, %v]", tk.Value, tc.lo, tc.hi)
				}
				if tk.Label != "" {
					got = append(got, tk.Label)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
			if len(ticks) < 2*len(got)-1 {
				t.Errorf("%d ticks for %d labels: want a minor tick between labels", len(ticks), len(got))
			}
		})
	}
}

func TestNiceStep(t *testing.T) {
	for _, tc := range []struct{ raw, want float64 }{
		{0.54, 1}, {1, 1}, {1.2, 2}, {2.1, 2.5}, {3, 5}, {5.6, 10}, {20, 20}, {5600, 10000},
	} {
		if got := niceStep(tc.raw); got != tc.want {
			t.Errorf("niceStep(%v) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}

func TestCoarsen(t *testing.T) {
	pts := []metrics.Point{{At: 0, Value: 1}, {At: 1, Value: 3}, {At: 2, Value: 5}, {At: 3, Value: 7}, {At: 4, Value: 9}}
	got := coarsen(pts, 3, false) // groups of 2: (1+3)/2, (5+7)/2, 9
	want := []metrics.Point{{At: 0, Value: 2}, {At: 2, Value: 6}, {At: 4, Value: 9}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("coarsen = %v, want %v", got, want)
		}
	}
	if last := coarsen(pts, 3, true); last[1].Value != 7 {
		t.Errorf("coarsen last = %v, want group values 3, 7, 9", last)
	}
}
