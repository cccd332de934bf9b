package traces

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// adapterParams are the LoRA adapter parameters a workload takes.
var adapterParams = []ParamSpec{
	{"adapters", KindInt, "0", "LoRA adapters lora-0..lora-(n-1) the requests name (0: none, the base model)"},
	{"adapter_skew", KindFloat, "0", "0: each group (or user) has its own adapter, group mod adapters; > 0: every request draws its adapter from a Zipf distribution of this exponent (lora-0 the most popular)"},
}

// adapterPicker assigns LoRA adapters: by group, or drawn by popularity.
type adapterPicker struct {
	n   int
	cum []float64 // Zipf cumulative weights, nil when by group
}

// readAdapters reads the adapter parameters.
func readAdapters(p *params) adapterPicker {
	a := adapterPicker{n: p.intIn("adapters", 0, maxCount)}
	skew := p.float("adapter_skew", 0, 10)
	if a.n > 0 && skew > 0 {
		a.cum = make([]float64, a.n)
		sum := 0.0
		for k := range a.n {
			sum += math.Pow(float64(k+1), -skew)
			a.cum[k] = sum
		}
		for k := range a.cum {
			a.cum[k] /= sum
		}
	}
	return a
}

// pick returns the adapter of a request of group g ("" without adapters).
func (a adapterPicker) pick(rng *rand.Rand, g int) string {
	switch {
	case a.n == 0:
		return ""
	case a.cum == nil:
		return fmt.Sprintf("lora-%d", g%a.n)
	}
	k := sort.SearchFloat64s(a.cum, rng.Float64())
	return fmt.Sprintf("lora-%d", min(k, a.n-1))
}
