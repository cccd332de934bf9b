package steplat

import "testing"

func TestMean(t *testing.T) {
	c := Coef{Step: 10, Prefill: 2, Decode: 3, Beta: 100, Gamma: 0.5, Attend: 0.25}
	tests := []struct {
		name       string
		prefill, b float64
		want       float64
	}{
		{"idle step", 0, 0, 10},
		{"prefill only: no β", 4, 0, 18},
		{"batch of one: no growth", 0, 1, 10 + 3 + 100},
		{"batch of two: half of γ", 0, 2, 10 + 6 + 100*1.25},
		{"batch of four with prefill", 5, 4, 10 + 10 + 12 + 100*(1+0.5*0.75)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Mean(tt.prefill, tt.b); got != tt.want {
				t.Errorf("Mean(%g, %g) = %g, want %g", tt.prefill, tt.b, got, tt.want)
			}
		})
	}
	if got := c.Attention(8); got != 2 {
		t.Errorf("Attention(8) = %g, want 2", got)
	}
	if got := (Coef{}).Mean(100, 8); got != 0 {
		t.Errorf("zero Coef: Mean = %g, want 0", got)
	}
}
