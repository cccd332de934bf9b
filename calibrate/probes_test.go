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

// TestCompareProbesSpeedAdjusted scales the first probe's time terms by
// the median of the phases' speed ratios: a machine 25 % faster in the
// second probe explains a c_decode 25 % lower, not a dimensionless γ.
func TestCompareProbesSpeedAdjusted(t *testing.T) {
	c := &ProbeComparison{
		Terms: []TermAgreement{
			{Name: "c_decode", Unit: "us", First: 2000, FirstErr: 40, Second: 1500, SecondErr: 30},
			{Name: "gamma", First: 1, FirstErr: 0.1, Second: 0.5, SecondErr: 0.1},
		},
		Speeds: []PhaseSpeed{{First: 2, Second: 1.5}, {First: 4, Second: 3}, {First: 1, Second: 2}},
	}
	c.adjust()
	if c.SpeedRatio != 0.75 {
		t.Fatalf("speed ratio %g, want the median 0.75", c.SpeedRatio)
	}
	if d := c.Terms[0]; d.Adjusted != 0 || !d.AdjustedAgree {
		t.Errorf("c_decode adjusted %g agree %v, want 0 and true", d.Adjusted, d.AdjustedAgree)
	}
	if g := c.Terms[1]; !math.IsNaN(g.Adjusted) || g.AdjustedAgree {
		t.Errorf("gamma adjusted %g agree %v, want NaN: it is not a time", g.Adjusted, g.AdjustedAgree)
	}
}
