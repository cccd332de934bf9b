package kvevents

// Stats counts what one backend's event stream delivered and what went
// wrong with it. Problems are counted, never fatal.
type Stats struct {
	// Batches and Events count batches and events applied to the index
	// (replayed ones included).
	Batches, Events int64
	// Gaps counts sequence gaps seen on the live stream; Replayed counts
	// batches recovered through the replay socket and Lost the missing
	// batches replay could not supply.
	Gaps, Replayed, Lost int64
	// LostAtStart counts the batches the publisher sent before the
	// stream's first one (its sequence numbers 1 up to the first seen,
	// and 0 too once a replay shows the publisher numbers from 0) that
	// the replay socket could not supply: what a publisher that dialled
	// late, or a subscriber that joined late, missed. It is a lower
	// bound without a replay endpoint: vLLM numbers from 0 and
	// llm-d-inference-sim from 1, so a missing batch 0 is not seen.
	LostAtStart int64
	// Orphans counts BlockStored events whose parent block the index
	// never saw (its batch was lost at start or in a gap, or the parent
	// overflowed the block limit). Their blocks start a chain of their
	// own, so later children attach and removals pair up, but no prompt
	// matches them: the prefix before them is unknown.
	Orphans int64
	// Restarts counts backend restarts: an AllBlocksCleared event or a
	// sequence number going back. Each one empties the backend's view.
	Restarts int64
	// Malformed counts messages or payloads that did not parse and
	// BlockStored events whose token ids do not fill their blocks (when
	// blocks are keyed by their tokens), UnknownTags events with a tag
	// other than vLLM's three, and
	// BlockSizeMismatch BlockStored events whose block size is not the
	// index's (their blocks are ignored).
	Malformed, UnknownTags, BlockSizeMismatch int64
	// Overflow counts stored blocks ignored because the backend already
	// held the index's per-backend limit.
	Overflow int64
	// Blocks is the number of blocks the index holds for the backend.
	Blocks int
	// Subscribed is set once the event stream is connected (live) or
	// wired (simulation).
	Subscribed bool
	// Unreachable is the connection error when the stream could not be
	// reached; the router then decides by load alone.
	Unreachable string
	// Hashes is how the index keys the backend's blocks: "engine",
	// "tokens", or "auto" while no BlockStored with token ids has come.
	Hashes string
	// ReplayEndpoint is the replay socket the stream fills gaps from
	// (empty when none is known).
	ReplayEndpoint string
	// Topics are the topics whose messages a Listener routed to the
	// backend, in order of first arrival (empty when dialled).
	Topics []string
	// FirstProblem describes the first malformed message, unknown tag or
	// block size mismatch, reported once.
	FirstProblem string
}

// problem records the first problem description.
func (s *Stats) problem(msg string) {
	if s.FirstProblem == "" {
		s.FirstProblem = msg
	}
}
