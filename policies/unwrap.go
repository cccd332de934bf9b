package policies

// Wrapper is implemented by filters: Routers that narrow the Backends
// and hand the Request to another Router. The replay finds a wrapped
// Router's optional interfaces (Feedback, TokenFeedback, StopReporter,
// HitPredictor, KVEventRouter) through Unwrap, so a filter never hides
// what its inner Router can do.
type Wrapper interface {
	// Unwrap returns the wrapped Router.
	Unwrap() Router
}

// As returns the first Router in r's chain (r itself, then what each
// Wrapper wraps) that implements T, and whether there is one. A filter
// that implements T itself (as lora-affinity implements Feedback) is
// found first and forwards to its inner Router.
func As[T any](r Router) (T, bool) {
	for r != nil {
		if t, ok := r.(T); ok {
			return t, true
		}
		w, ok := r.(Wrapper)
		if !ok {
			break
		}
		r = w.Unwrap()
	}
	var zero T
	return zero, false
}
