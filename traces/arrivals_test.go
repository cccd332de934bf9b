package traces

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// at builds Requests arriving at the given seconds.
func at(secs ...float64) []Request {
	out := make([]Request, len(secs))
	for i, s := range secs {
		out[i] = Request{ID: string(rune('a' + i)), Arrival: secondsDur(s)}
	}
	return out
}

// arrivalsOf applies o to reqs and returns the ids and arrivals.
func arrivalsOf(t *testing.T, reqs []Request, o ArrivalOptions) ([]string, []time.Duration) {
	t.Helper()
	got, err := ReadAll(WithArrivals(NewSliceSource(reqs), o))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var ts []time.Duration
	for _, r := range got {
		ids = append(ids, r.ID)
		ts = append(ts, r.Arrival)
	}
	return ids, ts
}

func TestWithArrivalsTraceTimes(t *testing.T) {
	s := time.Second
	tests := []struct {
		name  string
		o     ArrivalOptions
		ids   []string
		times []time.Duration
	}{
		{"unchanged", ArrivalOptions{}, []string{"a", "b", "c", "d", "e"}, []time.Duration{0, s, 2 * s, 4 * s, 8 * s}},
		{"half time scale", ArrivalOptions{TimeScale: 0.5}, []string{"a", "b", "c", "d", "e"}, []time.Duration{0, s / 2, s, 2 * s, 4 * s}},
		// the window starts at 2 s: c at 0, d at 2 s, e at 6 s.
		{"start offset", ArrivalOptions{Start: 2 * s}, []string{"c", "d", "e"}, []time.Duration{0, 2 * s, 6 * s}},
		// Duration is replay time: 4 s at scale 0.5 covers 8 s of trace, e at 4 s is out.
		{"duration after scaling", ArrivalOptions{TimeScale: 0.5, Duration: 4 * s}, []string{"a", "b", "c", "d"}, []time.Duration{0, s / 2, s, 2 * s}},
		{"start and duration", ArrivalOptions{Start: s, Duration: 3 * s}, []string{"b", "c"}, []time.Duration{0, s}},
		{"max requests", ArrivalOptions{MaxRequests: 2, Start: s}, []string{"b", "c"}, []time.Duration{0, s}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ids, times := arrivalsOf(t, at(0, 1, 2, 4, 8), tc.o)
			if d := cmp.Diff(tc.ids, ids); d != "" {
				t.Errorf("ids (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.times, times); d != "" {
				t.Errorf("arrivals (-want +got):\n%s", d)
			}
		})
	}
}

func TestWithArrivalsRate(t *testing.T) {
	reqs := make([]Request, 20000)
	for i := range reqs {
		reqs[i].ID = string(rune(i))
	}
	tests := []struct {
		name    string
		o       ArrivalOptions
		wantCV  float64
		cvSlack float64
	}{
		{"constant", ArrivalOptions{Rate: 4, Process: ProcessConstant}, 0, 1e-9},
		{"poisson", ArrivalOptions{Rate: 4, Seed: 1}, 1, 0.03},
		{"gamma cv 3", ArrivalOptions{Rate: 4, Process: ProcessGamma, CV: 3, Seed: 1}, 3, 0.3},
		{"gamma cv 0.5", ArrivalOptions{Rate: 4, Process: ProcessGamma, CV: 0.5, Seed: 1}, 0.5, 0.03},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, times := arrivalsOf(t, reqs, tc.o)
			if times[0] != 0 {
				t.Errorf("first arrival %v, want 0", times[0])
			}
			mean, cv := gapStats(times)
			// mean gap 1/4 s within 5 %; CV as asked.
			if math.Abs(mean-0.25) > 0.0125 || math.Abs(cv-tc.wantCV) > tc.cvSlack {
				t.Errorf("mean gap %.4f s, CV %.3f; want 0.25 s and %.2f", mean, cv, tc.wantCV)
			}
		})
	}
	_, a := arrivalsOf(t, reqs[:50], ArrivalOptions{Rate: 4, Seed: 9})
	_, b := arrivalsOf(t, reqs[:50], ArrivalOptions{Rate: 4, Seed: 9})
	if !cmp.Equal(a, b) {
		t.Error("same seed gave different arrivals")
	}
}

// gapStats returns the mean (s) and coefficient of variation of gaps.
func gapStats(ts []time.Duration) (mean, cv float64) {
	n := float64(len(ts) - 1)
	var sum, sq float64
	for i := 1; i < len(ts); i++ {
		g := (ts[i] - ts[i-1]).Seconds()
		sum += g
		sq += g * g
	}
	mean = sum / n
	return mean, math.Sqrt(max(sq/n-mean*mean, 0)) / mean
}

func TestWithArrivalsRateKeepsSessionOrder(t *testing.T) {
	src, _ := newTextWorkload("multi-turn", map[string]string{"requests": "300"}, 1)
	reqs, err := ReadAll(WithArrivals(src, ArrivalOptions{Rate: 50, Seed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	turn := map[string]int{}
	for _, r := range reqs {
		if want := turn[r.Session]; r.Turn != want {
			t.Fatalf("%s: turn %d arrives when turn %d is next", r.ID, r.Turn, want)
		}
		turn[r.Session]++
	}
}

func TestArrivalOptionsValidate(t *testing.T) {
	tests := []struct {
		o    ArrivalOptions
		want string
	}{
		{ArrivalOptions{TimeScale: -1}, "ArrivalOptions.TimeScale"},
		{ArrivalOptions{Rate: math.NaN()}, "ArrivalOptions.Rate"},
		{ArrivalOptions{CV: -2}, "ArrivalOptions.CV"},
		{ArrivalOptions{MaxRequests: -1}, "ArrivalOptions.MaxRequests"},
		{ArrivalOptions{Duration: -1}, "ArrivalOptions.Duration"},
		{ArrivalOptions{Start: -1}, "ArrivalOptions.Start"},
		{ArrivalOptions{Process: "weibull"}, `ArrivalOptions.Process "weibull"`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			err := tc.o.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want it to name %s", err, tc.want)
			}
			if _, err := WithArrivals(NewSliceSource(at(0)), tc.o).Next(); err == nil || errors.Is(err, io.EOF) {
				t.Errorf("Next with invalid options = %v", err)
			}
		})
	}
}

func TestWithArrivalsPassesErrors(t *testing.T) {
	src := WithArrivals(&errSource{n: 1}, ArrivalOptions{})
	if _, err := src.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v, want the source's", err)
	}
}

// TestArrivalsSaturate checks extreme scales and rates give arrivals that
// stay non-negative and non-decreasing (saturating at the largest
// Duration) instead of wrapping around.
func TestArrivalsSaturate(t *testing.T) {
	tests := []struct {
		name string
		src  func() Source
		o    ArrivalOptions
	}{
		{"time scale 1e300", func() Source { return NewSliceSource(at(0, 1, 2, 4)) }, ArrivalOptions{TimeScale: 1e300}},
		{"rate 1e-300", func() Source { return NewSliceSource(at(0, 1, 2, 4)) }, ArrivalOptions{Rate: 1e-300, Seed: 1}},
		{"generator rate 1e-300", func() Source {
			src, err := newTextWorkload("multi-turn", map[string]string{"rate": "1e-300", "think": "2000000h", "requests": "50"}, 1)
			if err != nil {
				t.Fatal(err)
			}
			return src
		}, ArrivalOptions{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reqs, err := ReadAll(WithArrivals(tc.src(), tc.o))
			if err != nil || len(reqs) < 4 {
				t.Fatalf("%d requests, err %v", len(reqs), err)
			}
			for i, r := range reqs {
				if r.Arrival < 0 || (i > 0 && r.Arrival < reqs[i-1].Arrival) {
					t.Fatalf("request %d arrives at %v after %v", i, r.Arrival, reqs[max(i-1, 0)].Arrival)
				}
			}
			if last := reqs[len(reqs)-1].Arrival; last != math.MaxInt64 {
				t.Errorf("last arrival %v, want the largest Duration", last)
			}
		})
	}
}
