package traces

import (
	"fmt"
	"time"
)

// convo builds the turns of one generated conversation. Turn k's Request
// carries the whole history: Messages for chat endpoints and, for
// completions, Prompt = the messages' contents joined by newlines, so
// turn k+1's prompt extends turn k's prompt + answer + new question and
// shares its prefix. Every word is one whitespace token, so InputTokens
// is the exact word count.
type convo struct {
	id, user string
	msgs     []Message
	tokens   int
	out      []Request
	// thinkNext is the think time before the next turn (set by the
	// generator after each turn).
	thinkNext time.Duration
}

// newConvo starts a conversation, with a system prompt when system is
// not empty (sysTokens words).
func newConvo(id, user, system string, sysTokens int) *convo {
	c := &convo{id: id, user: user}
	if system != "" {
		c.msgs = append(c.msgs, Message{Role: "system", Content: system})
		c.tokens = sysTokens
	}
	return c
}

// ask adds a user turn arriving at at, asking for output tokens, and the
// synthesised answer (answer words) that the next turn will carry.
func (c *convo) ask(at time.Duration, question string, qTokens, output int, answer string) {
	c.msgs = append(c.msgs, Message{Role: "user", Content: question})
	c.tokens += qTokens
	msgs := append([]Message(nil), c.msgs...)
	turn := len(c.out)
	id := fmt.Sprintf("%s-%d", c.id, turn)
	session := c.id
	r := Request{ID: id, Arrival: at, User: c.user, Session: session, Turn: turn,
		Messages: msgs, Prompt: joinContents(msgs), InputTokens: c.tokens, OutputTokens: output}
	if turn > 0 {
		r.Think, r.ThinkKnown = c.thinkNext, true
	}
	c.out = append(c.out, r)
	c.msgs = append(c.msgs, Message{Role: "assistant", Content: answer})
	c.tokens += output
}

// single returns a one-turn Request with no session: system prompt (may
// be empty) then question.
func single(id, user string, at time.Duration, system string, sysTokens int, question string, qTokens, output int) Request {
	c := newConvo(id, user, system, sysTokens)
	c.ask(at, question, qTokens, output, "")
	r := c.out[0]
	r.ID, r.Session = id, ""
	return r
}

// JoinContents is the completions prompt of a conversation: its
// messages' contents joined by newlines (how generated and ShareGPT
// sessions set Prompt beside Messages).
func JoinContents(ms []Message) string { return joinContents(ms) }
