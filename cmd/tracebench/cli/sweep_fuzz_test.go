package cli

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzSweepRates: --rates parses to one finite positive rate per comma
// part, or fails with a usage error naming --rates; it never panics.
func FuzzSweepRates(f *testing.F) {
	for _, s := range []string{"1,2,4,8", "0.5x,1x,2x", "12.5", "", ",", "1,,2", "-1", "0", "1e400", "NaN", "2xx", " 3 , 4x "} {
		f.Add(s, 2.5)
	}
	f.Add("1e300x", 1e300)
	f.Add("2x", math.NaN())
	f.Fuzz(func(t *testing.T, s string, native float64) {
		rates, err := parseLadder(s, native)
		if err != nil {
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--rates") {
				t.Fatalf("%q: error %v is not a usage error naming --rates", s, err)
			}
			return
		}
		if len(rates) != strings.Count(s, ",")+1 {
			t.Fatalf("%q: %d rates for %d parts", s, len(rates), strings.Count(s, ",")+1)
		}
		for _, r := range rates {
			if !(r > 0) || math.IsInf(r, 0) {
				t.Fatalf("%q (native %v): rate %v", s, native, r)
			}
		}
	})
}
