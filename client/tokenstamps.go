package client

import (
	"time"

	"github.com/tracebench/tracebench/results"
)

// TokenStamps stamps a Result's generated tokens as they come: the first
// token and first output times, the gaps between tokens (TBT), the
// counts, and at Close the summaries the Result keeps. The client feeds
// the same accounting from a response stream; a virtual-time driver
// feeds it from engine events, one token at a time.
type TokenStamps struct{ s tokenStats }

// NewTokenStamps stamps res's tokens at the times now returns.
func NewTokenStamps(res *results.Result, now func() time.Duration) TokenStamps {
	return TokenStamps{s: tokenStats{res: res, now: now}}
}

// OnTokens calls f with the count of every token batch stamped (the
// dispatcher's per-token accounting; nil: none).
func (t *TokenStamps) OnTokens(f func(n int)) { t.s.onTokens = f }

// Token stamps one generated token, a reasoning or an output one.
func (t *TokenStamps) Token(reasoning bool) { t.s.token(nil, reasoning, !reasoning) }

// Cached records that the server reported the cached prompt tokens, so the
// Result's CachedTokens is a figure rather than unknown.
func (t *TokenStamps) Cached() { t.s.cached = true }

// Close writes the summaries into the Result.
func (t *TokenStamps) Close() { t.s.close() }
