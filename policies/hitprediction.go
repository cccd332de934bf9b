package policies

import "github.com/tracebench/tracebench/traces"

// HitPredictor is implemented by Routers whose decision rests on their own
// view of the Backends' prefix caches (prefix-cache, approx-prefix,
// cache-aware): their Choices carry that view's PredictedHitTokens. A
// Router without such a view leaves PredictedHitTokens zero and holds only
// its decision; PredictHits gives it the shared HitModel's prediction.
type HitPredictor interface {
	Router
	// PredictsHits marks the Router's Choices as carrying its own
	// PredictedHitTokens.
	PredictsHits()
}

// HitModelFor returns a fresh HitModel to predict r's hits, or nil when r
// is a HitPredictor and predicts them itself.
func HitModelFor(r Router) *HitModel {
	if _, ok := As[HitPredictor](r); ok {
		return nil
	}
	return NewHitModel()
}

// Fill sets ch.PredictedHitTokens to the hit m expects on the chosen
// Backend (found in st by Index) and records req's blocks for it. A nil
// HitModel leaves ch as the Router made it.
func (m *HitModel) Fill(req *traces.Request, st State, ch *Choice) {
	if m == nil {
		return
	}
	b := Backend{Index: ch.Backend}
	for _, x := range st.Backends {
		if x.Index == ch.Backend {
			b = x
			break
		}
	}
	ch.PredictedHitTokens = m.Observe(req, b)
}

// PredictHits returns r with PredictedHitTokens on every Choice: r itself
// when it is a HitPredictor, else r behind a fresh HitModel. The wrapper
// is for callers that only Pick (benchmarks, tests, tools); it does not
// forward Feedback or TokenFeedback, so a replay keeps the Router and
// calls HitModelFor and Fill instead.
func PredictHits(r Router) Router {
	m := HitModelFor(r)
	if m == nil {
		return r
	}
	return &predicting{Router: r, hits: m}
}

// predicting is a Router behind the shared HitModel.
type predicting struct {
	Router
	hits *HitModel
}

// Pick implements Router.
func (p *predicting) Pick(req *traces.Request, st State) (Choice, error) {
	ch, err := p.Router.Pick(req, st)
	if err == nil {
		p.hits.Fill(req, st, &ch)
	}
	return ch, err
}
