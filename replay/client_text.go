package replay

import (
	"context"
	"log/slog"
	"sync"

	"github.com/tracebench/tracebench/traces"
)

// maxServerTexts bounds the texts a Client keeps (then it starts over).
const maxServerTexts = 4096

// serverTexts caches the server's text of generated contents: a content
// of synthetic words (traces.SynthIDs) detokenized through the server's
// /detokenize, so a chat message comes to the intended number of tokens
// on the server's tokenizer. Safe for concurrent use.
type serverTexts struct {
	mu    sync.Mutex
	texts map[string]string
	// off is set by the first failed detokenize: the server has no
	// working endpoint, and every later prompt goes as synthetic words.
	off bool
}

// exactChat returns req with the generated contents of its chat messages
// (or of its rendered prompt, as one user message) replaced by the
// server's text of the token ids they spell, when the API is chat,
// TokenExact is on and the dialect can detokenize; else req itself. The
// first failed detokenize turns this off for the Client: the synthetic
// text is sent (the report's token ratio then shows the difference),
// and it is logged once.
func (c *Client) exactChat(ctx context.Context, base string, req *traces.Request) *traces.Request {
	if c.o.API != APIChat || !c.o.TokenExact || req == nil || !c.dialect().CanTokenize() {
		return req
	}
	msgs := req.Messages
	if len(msgs) == 0 {
		msgs = []traces.Message{{Role: "user", Content: traces.PromptText(req)}}
	}
	out := make([]traces.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if t, ok := c.serverText(ctx, base, m.Content); ok {
			out[i].Content = t
		}
	}
	r := *req
	r.Messages = out
	return &r
}

// serverText returns the server's text of a generated content.
func (c *Client) serverText(ctx context.Context, base, content string) (string, bool) {
	ids, ok := traces.SynthIDs(content)
	if !ok {
		return "", false
	}
	st := &c.texts
	st.mu.Lock()
	t, hit := st.texts[content]
	off := st.off
	st.mu.Unlock()
	if hit || off {
		return t, hit
	}
	dctx, cancel := context.WithTimeout(ctx, c.o.FirstByteTimeout)
	defer cancel()
	t, err := c.fitText(dctx, base, ids)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err != nil {
		if !st.off {
			st.off = true
			slog.Warn("detokenize failed; chat prompts go as synthetic words", "backend", baseURL(base),
				"err", redact(err.Error(), c.secrets))
		}
		return "", false
	}
	if st.texts == nil || len(st.texts) >= maxServerTexts {
		st.texts = map[string]string{}
	}
	st.texts[content] = t
	return t, true
}

// fitRounds bounds the detokenize-and-count rounds of fitText.
const fitRounds = 3

// fitText detokenizes ids and, where the server also tokenizes, trims or
// extends the ids until the text comes back as len(ids) tokens (pieces
// joined in text can merge or split when tokenized again), in at most
// fitRounds rounds; the last text is kept either way.
func (c *Client) fitText(ctx context.Context, base string, ids []int) (string, error) {
	d, want := c.dialect(), len(ids)
	cur := ids
	t, err := d.Detokenize(ctx, c.hc, base, c.o.Model, cur)
	for round := 0; err == nil && round < fitRounds; round++ {
		got, terr := d.Tokenize(ctx, c.hc, base, c.o.Model, t)
		if terr != nil || len(got) == want {
			break
		}
		n := len(cur) + want - len(got)
		if n <= 0 {
			break
		}
		for len(cur) < n {
			cur = append(cur[:len(cur):len(cur)], ids[len(cur)%len(ids)])
		}
		cur = cur[:n]
		t, err = d.Detokenize(ctx, c.hc, base, c.o.Model, cur)
	}
	return t, err
}
