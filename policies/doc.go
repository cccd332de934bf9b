// Package policies holds the Router and Queue interfaces, the Backend value
// snapshot they decide from, and every routing and queueing policy tracebench
// embeds, with a registry that builds them by name.
//
// Policies are single-threaded: the replay scheduler goroutine owns them and
// calls every method from that goroutine, so they keep plain state without
// locks. Time is passed in (State.Now, offsets from the start of the Run) and
// never read from a clock, so the same policy runs in real and virtual time.
// Random choices draw from a seeded *rand.Rand handed to the constructor.
package policies
