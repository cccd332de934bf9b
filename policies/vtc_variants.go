package policies

import (
	"math"
	"math/rand/v2"

	"github.com/tracebench/tracebench/traces"
)

// vtcVariant says how a VTC Queue charges output tokens and lifts
// counters.
type vtcVariant uint8

const (
	// vtcPlain charges output tokens as they stream back (vtc, lcf).
	vtcPlain vtcVariant = iota
	// vtcOracle charges the known output length at release and nothing
	// after (the artifact's vtc_oracle).
	vtcOracle
	// vtcPredict charges a predicted output length at release, tokens
	// beyond it as they stream, and settles to the actual length at Done
	// (the artifact's vtc_oracle with --predict-range).
	vtcPredict
	// vtcMaxFair charges like vtcPlain but lifts every user's counter to a
	// virtual counter before each release instead of lifting on arrival
	// (the artifact's vtc_max_fair).
	vtcMaxFair
)

// vtcVariantParams are the vtc parameters plus predict_range.
var vtcVariantParams = append(append([]ParamSpec(nil), vtcParams...),
	ParamSpec{Name: "predict_range", Kind: kFloat, Default: traces.ParamFloat(0.5), Doc: "vtc-predict: the prediction is the actual output length times a uniform draw in [1-r, 1+r] (the artifact's --predict-range)"})

func init() {
	const src = "Sheng et al., Fairness in Serving Large Language Models (OSDI 2024), section 4.4 and appendix; VTC artifact (Ying1123/VTC-artifact, slora/server/router)"
	RegisterQueue(Spec{Name: "vtc-oracle",
		Doc:    "VTC charging each Request's known output length (Request.OutputTokens) at release, nothing as tokens stream",
		Needs:  []string{"user", "in-flight", "output length"},
		Source: src + " vtc_oracle_req_queue.py",
		Params: vtcParams},
		func(p Params, _ *rand.Rand) (Queue, error) { return newVTCVariant("vtc-oracle", vtcOracle, p, nil) })
	RegisterQueue(Spec{Name: "vtc-predict",
		Doc: "VTC charging a predicted output length at release (the known length times a seeded uniform error in [1-r, 1+r]), " +
			"tokens beyond the prediction as they stream, and the difference to the actual length at Done",
		Needs:  []string{"user", "in-flight", "token-stream", "output length"},
		Source: src + " vtc_oracle with --predict-range, settled as vtc_pred_len_req_queue.py",
		Params: vtcVariantParams},
		func(p Params, rng *rand.Rand) (Queue, error) { return newVTCVariant("vtc-predict", vtcPredict, p, rng) })
	RegisterQueue(Spec{Name: "vtc-max-fair",
		Doc: "VTC without the arrival lift: before each release every user's counter is raised to a virtual counter, " +
			"the largest counter when nothing is in flight, else the counter of the user of the newest in-flight Request " +
			"minus that Request's input and streamed tokens",
		Needs:  []string{"user", "in-flight", "token-stream"},
		Source: src + " vtc_max_req_queue.py",
		Params: vtcParams},
		func(p Params, _ *rand.Rand) (Queue, error) { return newVTCVariant("vtc-max-fair", vtcMaxFair, p, nil) })
}

// newVTCVariant builds a VTC Queue of the given variant.
func newVTCVariant(name string, variant vtcVariant, p Params, rng *rand.Rand) (*vtcQueue, error) {
	q, err := newVTCQueue(name, variant != vtcMaxFair, p)
	if err != nil {
		return nil, err
	}
	q.variant = variant
	if variant == vtcPredict {
		if q.predRange, err = p.Float("predict_range", 0, 1); err != nil {
			return nil, err
		}
		if rng == nil {
			rng = rand.New(rand.NewPCG(1, 0x767463))
		}
		q.rng = rng
	}
	return q, nil
}

// chargeRelease charges req's input and, for the oracle and predict
// variants, its known or predicted output length.
func (v *vtcQueue) chargeRelease(req *traces.Request, cnt *vtcCount) {
	u := cnt.user
	u.counter += v.wIn * float64(req.InputTokens) / u.weight
	switch v.variant {
	case vtcOracle:
		v.chargeOutput(cnt, req.OutputTokens)
	case vtcPredict:
		f := 1 + v.predRange*(2*v.rng.Float64()-1)
		cnt.pred = max(0, int(math.Round(float64(req.OutputTokens)*f)))
		v.chargeOutput(cnt, cnt.pred)
	}
}

// streamTarget is the output tokens to have charged after a streamed
// chunk: all streamed (vtc), the prediction or more (predict), unchanged
// (oracle).
func (v *vtcQueue) streamTarget(cnt *vtcCount) int {
	switch v.variant {
	case vtcOracle:
		return cnt.charged
	case vtcPredict:
		return max(cnt.pred, cnt.tokens)
	}
	return cnt.tokens
}

// finalTarget is the output tokens to have charged at Done when final
// tokens were produced: final (vtc, never less than charged; predict,
// refunding an over-prediction), unchanged (oracle).
func (v *vtcQueue) finalTarget(cnt *vtcCount, final int) int {
	switch v.variant {
	case vtcOracle:
		return cnt.charged
	case vtcPredict:
		return final
	}
	return max(final, cnt.charged)
}

// chargeOutput moves cnt's output charge to target tokens, adding (or,
// for a refund, subtracting) w_out / weight per token.
func (v *vtcQueue) chargeOutput(cnt *vtcCount, target int) {
	if target == cnt.charged {
		return
	}
	cnt.user.counter += v.wOut * float64(target-cnt.charged) / cnt.user.weight
	cnt.charged = target
	v.events.touch()
}

// maxFairLift raises every user's counter to the virtual counter: the
// largest counter when nothing is in flight, else the counter of the user
// of the newest in-flight Request minus that Request's input and streamed
// output tokens (unweighted, as the artifact computes it).
func (v *vtcQueue) maxFairLift() {
	if len(v.users) == 0 {
		return
	}
	vc := math.Inf(-1)
	if n := len(v.flight); n > 0 {
		req := v.flight[n-1]
		cnt := v.counted[req]
		vc = cnt.user.counter - float64(req.InputTokens+cnt.tokens)
	} else {
		for _, u := range v.users {
			vc = max(vc, u.counter)
		}
	}
	for _, u := range v.users {
		u.counter = max(u.counter, vc)
	}
}

// leaveFlight drops req from the in-flight release order.
func (v *vtcQueue) leaveFlight(req *traces.Request) {
	for i := len(v.flight) - 1; i >= 0; i-- {
		if v.flight[i] == req {
			v.flight = append(v.flight[:i], v.flight[i+1:]...)
			return
		}
	}
}
