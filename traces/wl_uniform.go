package traces

import (
	"fmt"
	"time"
)

// uniformLengthsSpec: output lengths uniform on an integer range, for
// batching experiments. The defaults [1, 20] are the setting of the
// multi-bin batching closed form (docs/architecture.md, "Multi-bin closed
// form": equal-mass bins raise throughput by +27.4 % at K = 2 for B = 8
// with integer lengths 1..20).
func uniformLengthsSpec() WorkloadSpec {
	return WorkloadSpec{
		Name: "uniform-lengths",
		Doc:  "unrelated single-turn prompts with input lengths uniform in [input_min, input_max] and output lengths uniform in [output_min, output_max]",
		Params: []ParamSpec{
			{"input_min", KindInt, "128", "shortest prompt, tokens"},
			{"input_max", KindInt, "128", "longest prompt, tokens"},
			{"output_min", KindInt, "1", "shortest output, tokens"},
			{"output_max", KindInt, "20", "longest output, tokens"},
			poissonRateParam("10"), requestsParam("1000"),
		},
		build: buildUniform,
	}
}

// buildUniform builds the uniform-lengths workload from p, seeded by seed.
func buildUniform(p *params, seed uint64) (Source, error) {
	inMin, inMax := p.tokens("input_min", 1), p.tokens("input_max", 1)
	outMin, outMax := p.tokens("output_min", 1), p.tokens("output_max", 1)
	rate := p.positive("rate")
	g := newGenerator(seed, "uniform-lengths", p.int("requests", 1))
	p.rangeOK("input_min", inMin, "input_max", inMax)
	p.rangeOK("output_min", outMin, "output_max", outMax)
	return poissonSource(p, g, rate, func(g *generator, i int, at time.Duration) []Request {
		in, out := g.uniformInt(inMin, inMax), g.uniformInt(outMin, outMax)
		q := SynthWords(contentKey(seed, "uniform", i), in)
		return []Request{single(fmt.Sprintf("ul%d", i), "", at, "", 0, q, in, out)}
	})
}
