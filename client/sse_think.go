package client

import "strings"

// The tags that delimit reasoning inside the content of models served
// without a reasoning parser (DeepSeek-R1, QwQ, Qwen3).
const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// States of a thinkTags splitter.
const (
	tagsStart   = iota // no text other than white space yet
	tagsInside         // after <think>: reasoning
	tagsOutside        // text without an opening tag: output, unless a </think> comes
	tagsAfter          // after </think>: output
)

// thinkTags splits a stream's content into reasoning and output at
// <think> and </think>, as Options.ReasoningTags asks. Reasoning
// is the text after a leading <think> up to </think>; a </think> that
// follows text with no opening tag (a chat template that opens the
// thought itself, as DeepSeek-R1's does) makes all the text before it
// reasoning. A tag may be split across chunks. Memory is bounded: it
// keeps only the tail of the last text that may begin a tag.
type thinkTags struct {
	state int
	carry string // the end of the last text, a proper prefix of the tag looked for
}

// tagCut is what one chunk's text was made of.
type tagCut struct {
	// reasoning and output report reasoning and output text (or a tag,
	// which counts as reasoning) in the chunk.
	reasoning, output bool
	// retro reports a </think> after text with no opening tag: the
	// earlier text taken as output was reasoning.
	retro bool
}

// feed splits the next chunk's content text.
func (t *thinkTags) feed(text string) tagCut {
	var c tagCut
	if text == "" {
		return c
	}
	s := t.carry + text
	t.carry = ""
	if t.state == tagsStart {
		s = t.start(s, &c)
	}
	switch t.state {
	case tagsInside, tagsOutside:
		t.untilClose(s, &c)
	case tagsAfter:
		c.output = c.output || s != ""
	}
	return c
}

// start reads text before the first non-space character: a leading
// <think> opens reasoning, a prefix of one waits for more, anything
// else is output (until a </think> may say otherwise). It returns the
// text left to read.
func (t *thinkTags) start(s string, c *tagCut) string {
	rest := strings.TrimLeft(s, " \t\r\n")
	switch {
	case rest == "":
		return ""
	case strings.HasPrefix(rest, thinkOpen):
		t.state, c.reasoning = tagsInside, true
		return rest[len(thinkOpen):]
	case strings.HasPrefix(thinkOpen, rest):
		t.carry = rest // "<thi": wait for the rest of the tag
		return ""
	}
	t.state = tagsOutside
	return rest
}

// untilClose reads s looking for </think>, in reasoning (inside) or in
// provisional output (outside).
func (t *thinkTags) untilClose(s string, c *tagCut) {
	i := strings.Index(s, thinkClose)
	if i < 0 {
		if s != "" {
			if t.state == tagsInside {
				c.reasoning = true
			} else {
				c.output = true
			}
		}
		t.carry = s[len(s)-tagTail(s, thinkClose):]
		return
	}
	c.reasoning = true
	c.retro = t.state == tagsOutside
	t.state = tagsAfter
	c.output = c.output || len(s) > i+len(thinkClose)
}

// tagTail is the length of the longest suffix of s that is a proper
// prefix of tag.
func tagTail(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
