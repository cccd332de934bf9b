package calibrate

import (
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/profile"
)

func TestNoiseWarning(t *testing.T) {
	tests := []struct {
		name string
		rs   []profile.Residual
		want string
	}{
		{"quiet", []profile.Residual{{Kind: "ttft", RelRMS: 0.3}, {Kind: "tbt", RelRMS: 0.35}}, ""},
		{"noisy decode", []profile.Residual{{Kind: "ttft", RelRMS: 0.3}, {Kind: "tbt", RelRMS: 2.01}}, "the tbt residuals are 201 %"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := noiseWarning(tc.rs)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("noiseWarning = %q, want %q", got, tc.want)
			}
		})
	}
}
