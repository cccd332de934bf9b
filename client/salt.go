package client

import (
	"github.com/cespare/xxhash/v2"

	"github.com/tracebench/tracebench/traces"
)

// SaltTokens is the length, in tokens, of the salt a Client with
// Options.Salt puts at the head of every token-id prompt: one
// block of vLLM's default block size, so the trace's own blocks keep
// their boundaries.
const SaltTokens = 16

// saltIDs returns the SaltTokens token ids that salt spells (the
// synthetic words of its key, as a generated prompt spells its blocks).
func saltIDs(salt string) []int {
	ids, _ := traces.SynthIDs(traces.SynthWords(xxhash.Sum64String("salt "+salt), SaltTokens))
	return ids
}

// Salted reports whether the Client puts its salt at the head of its
// prompts: a Salt is set and prompts go as token ids (completions API,
// TokenExact, a dialect that takes token prompts), so every salt has the
// same SaltTokens length and the usage counts can discount it exactly.
// Text and chat prompts are never salted: a tokenizer the client does
// not know would give salts of different lengths.
func (c *Client) Salted() bool {
	return c.o.Salt != "" && !c.chatLike() && c.o.TokenExact && c.dialect().TokenPrompts()
}

// saltLen is the number of prompt tokens the salt adds (0 unsalted).
func (c *Client) saltLen() int {
	if c.Salted() {
		return SaltTokens
	}
	return 0
}

// salted returns ids behind the Client's salt (ids unchanged when the
// Client salts nothing).
func (c *Client) salted(ids []int) []int {
	if !c.Salted() {
		return ids
	}
	return append(append(make([]int, 0, SaltTokens+len(ids)), c.salt...), ids...)
}

// unsalt removes the salt's share from a response's prompt and cached
// token counts, so they count the trace's tokens alone.
func (s *tokenStats) unsalt() {
	if s.salt == 0 {
		return
	}
	s.res.PromptTokens = max(s.res.PromptTokens-s.salt, 0)
	s.res.CachedTokens = max(s.res.CachedTokens-s.salt, 0)
}
