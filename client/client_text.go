package client

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
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
	// template caches the chat template's token cost by server and role
	// sequence (-1: unknown); templateOff is set by the first failure.
	template    map[string]int
	templateOff bool
}

// exactChat returns req with the generated contents of its chat messages
// (or of its rendered prompt, as one user message) replaced by the
// server's text of the token ids they spell, when the API is chat or
// responses,
// TokenExact is on and the dialect can detokenize; else req itself. The
// first failed detokenize turns this off for the Client: the synthetic
// text is sent (the report's token ratio then shows the difference),
// and it is logged once.
func (c *Client) exactChat(ctx context.Context, base string, req *traces.Request) *traces.Request {
	if !c.chatLike() || !c.o.TokenExact || req == nil || !c.dialect().CanTokenize() {
		return req
	}
	msgs := req.Messages
	if len(msgs) == 0 {
		msgs = []traces.Message{{Role: "user", Content: traces.PromptText(req)}}
	}
	trim := c.templateTrim(ctx, base, msgs)
	out := make([]traces.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if t, ok := c.serverText(ctx, base, m.Content, trim[i]); ok {
			out[i].Content = t
		}
	}
	r := *req
	r.Messages = out
	return &r
}

// serverText returns the server's text of a generated content, trim
// tokens shorter than it spells (the chat template's share).
func (c *Client) serverText(ctx context.Context, base, content string, trim int) (string, bool) {
	ids, ok := traces.SynthIDs(content)
	if !ok {
		return "", false
	}
	ids = ids[:len(ids)-min(trim, len(ids)-1)]
	key := content
	if trim > 0 {
		key = content + "\x00" + strconv.Itoa(trim)
	}
	st := &c.texts
	st.mu.Lock()
	t, hit := st.texts[key]
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
			slog.Warn("detokenize failed; chat prompts go as synthetic words", "backend", BaseURL(base),
				"err", redact(err.Error(), c.secrets))
		}
		return "", false
	}
	if st.texts == nil || len(st.texts) >= maxServerTexts {
		st.texts = map[string]string{}
	}
	st.texts[key] = t
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

// templateTrim returns, per message, how many tokens to take off its
// generated content so the templated conversation comes to the tokens the
// contents spell: the chat template's cost for these roles, measured
// once per server and role sequence (TemplateTokens), taken from the last
// message backwards, each keeping at least one token. All zeros when the
// dialect cannot count the template or the first count failed (logged
// once).
func (c *Client) templateTrim(ctx context.Context, base string, msgs []traces.Message) []int {
	trim := make([]int, len(msgs))
	cost := c.templateCost(ctx, base, msgs)
	for i := len(msgs) - 1; i >= 0 && cost > 0; i-- {
		ids, ok := traces.SynthIDs(msgs[i].Content)
		if !ok {
			continue
		}
		trim[i] = min(cost, len(ids)-1)
		cost -= trim[i]
	}
	return trim
}

// templateCost is the chat template's token cost of msgs' roles on the
// server at base (0 when unknown).
func (c *Client) templateCost(ctx context.Context, base string, msgs []traces.Message) int {
	d := c.dialect()
	if !d.CanCountTemplate() {
		return 0
	}
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	key := BaseURL(base) + "\x00" + strings.Join(roles, ",")
	st := &c.texts
	st.mu.Lock()
	n, hit := st.template[key]
	off := st.templateOff || st.off // no template count without detokenized texts
	st.mu.Unlock()
	if hit || off {
		return max(n, 0)
	}
	tctx, cancel := context.WithTimeout(ctx, c.o.FirstByteTimeout)
	defer cancel()
	n, err := d.TemplateTokens(tctx, c.hc, base, c.o.Model, roles)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err != nil {
		if !st.templateOff {
			st.templateOff = true
			slog.Warn("counting the chat template's tokens failed; chat prompts carry the template on top of the trace's tokens",
				"backend", BaseURL(base), "err", redact(err.Error(), c.secrets))
		}
		return 0
	}
	if st.template == nil || len(st.template) >= maxServerTexts {
		st.template = map[string]int{}
	}
	st.template[key] = n
	return n
}
