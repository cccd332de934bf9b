package policies

func init() {
	registerVTC("lcf", false,
		"least counter first: vtc without the counter lift (a user keeps the credit of its idle time), the VTC paper's baseline",
		"Sheng et al., Fairness in Serving Large Language Models (OSDI 2024), LCF baseline")
}
