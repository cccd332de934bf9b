// Package policies holds the Router and Queue interfaces, the Backend value
// snapshot they decide from, and every routing and queueing policy tracebench
// embeds, with a registry that builds them by name.
//
// Policies are single-threaded: the replay scheduler goroutine owns them and
// calls every method from that goroutine, so they keep plain state without
// locks. Time is passed in (State.Now, offsets from the start of the Run) and
// never read from a clock, so the same policy runs in real and virtual time.
// Random choices draw from a seeded *rand.Rand handed to the constructor.
//
// A Router's code holds only its decision. Routers that decide from their
// own view of the Backends' prefix caches implement HitPredictor and report
// the hit they expect; for every other Router the replay predicts it with
// one shared HitModel (PredictHits wraps a Router the same way).
package policies
