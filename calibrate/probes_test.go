package calibrate

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestCompareProbesTerms compares the terms two fits share: a term
// either fit left out, or that has no finite error, is not compared, and
// one more than 2 combined errors apart does not agree.
func TestCompareProbesTerms(t *testing.T) {
	first := &Result{Params: []Param{
		{Name: "c_prefill", Value: 100, StdErr: 3, Unit: "us", Identified: true},
		{Name: "c_decode", Value: 2000, StdErr: 30, Unit: "us", Identified: true},
		{Name: "gamma", Value: 0, Identified: false},
		{Name: "beta", Value: 1, StdErr: math.NaN(), Unit: "ms", Identified: true},
	}}
	second := &Result{Params: []Param{
		{Name: "c_prefill", Value: 105, StdErr: 4, Unit: "us", Identified: true},
		{Name: "c_decode", Value: 1800, StdErr: 40, Unit: "us", Identified: true},
		{Name: "gamma", Value: 1, StdErr: 0.1, Identified: true},
		{Name: "beta", Value: 1, StdErr: 0.1, Unit: "ms", Identified: true},
	}}
	c, err := CompareProbes(first, second, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		sigmas float64
		agree  bool
	}{{"c_prefill", 1, true}, {"c_decode", 4, false}}
	if len(c.Terms) != len(want) {
		t.Fatalf("%d terms compared, want %d: %+v", len(c.Terms), len(want), c.Terms)
	}
	for i, w := range want {
		g := c.Terms[i]
		if g.Name != w.name || math.Abs(g.Sigmas-w.sigmas) > 1e-9 || g.Agree != w.agree {
			t.Errorf("term %d: %s %.3g apart agree %v, want %s %.3g %v", i, g.Name, g.Sigmas, g.Agree, w.name, w.sigmas, w.agree)
		}
	}
	var b bytes.Buffer
	if err := WriteProbes(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"probes: 1 of 2 terms agree", "server speed by phase: n/a"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, b.String())
		}
	}
}

// TestSpeedVerdict says the machine's speed moved only past 10 %.
func TestSpeedVerdict(t *testing.T) {
	cases := []struct {
		first, second float64
		want          string
	}{
		{2, 2.1, "within 10 %"},
		{2, 1.7, "moved between the probes"},
		{2, 3, "moved between the probes"},
	}
	for _, tc := range cases {
		var b bytes.Buffer
		if err := writeSpeedVerdict(&b, PhaseSpeed{Phase: "c1", First: tc.first, Second: tc.second}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%g → %g ms: %q, want %q in it", tc.first, tc.second, b.String(), tc.want)
		}
	}
}
