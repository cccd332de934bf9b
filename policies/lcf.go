package policies

import "math/rand/v2"

func init() {
	RegisterQueue(Spec{Name: "lcf",
		Doc:    "least counter first: vtc without the counter lift (a user keeps the credit of its idle time), the VTC paper's baseline",
		Needs:  []string{"user", "in-flight", "token-stream", NeedCapacity},
		Source: "Sheng et al., Fairness in Serving Large Language Models (OSDI 2024), LCF baseline",
		Params: vtcParams},
		func(p Params, _ *rand.Rand) (Queue, error) { return newVTCQueue("lcf", false, p) })
}
