package plan

import (
	"errors"
	"slices"
	"testing"
)

// TestFewestReplicas runs the search over monotone fakes: a fleet of n
// passes when n ≥ need.
func TestFewestReplicas(t *testing.T) {
	for _, tc := range []struct {
		name      string
		need, max int
		want      int
		tried     []int
	}{
		{"one replica is enough", 1, 64, 1, []int{1}},
		{"a power of two", 8, 64, 8, []int{1, 2, 4, 8, 6, 7}},
		{"between powers", 5, 64, 5, []int{1, 2, 4, 8, 6, 5}},
		{"the largest fleet", 64, 64, 64, []int{1, 2, 4, 8, 16, 32, 64, 48, 56, 60, 62, 63}},
		{"capped gallop", 9, 10, 9, []int{1, 2, 4, 8, 10, 9}},
		{"not met", 100, 64, 0, []int{1, 2, 4, 8, 16, 32, 64}},
		{"max of one, not met", 2, 1, 0, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs []int
			eval := func(n int) (float64, bool, error) {
				runs = append(runs, n)
				return float64(n) / float64(tc.need), n >= tc.need, nil
			}
			got, tried, err := FewestReplicas(eval, tc.max)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || !slices.Equal(runs, tc.tried) || len(tried) != len(runs) {
				t.Errorf("got %d after %v, want %d after %v", got, runs, tc.want, tc.tried)
			}
		})
	}
}

func TestFewestReplicasErrors(t *testing.T) {
	if _, _, err := FewestReplicas(nil, 0); err == nil {
		t.Error("max 0: want an error")
	}
	boom := errors.New("boom")
	_, tried, err := FewestReplicas(func(n int) (float64, bool, error) {
		if n == 4 {
			return 0, false, boom
		}
		return 0, false, nil
	}, 64)
	if !errors.Is(err, boom) || len(tried) != 2 {
		t.Errorf("err %v after %d sizes, want boom after 2", err, len(tried))
	}
}
