package mockserver

// genToken is one generated token as a stream writer sees it.
type genToken struct {
	// text is the token's text ("" for end-of-sequence); finish is ""
	// or the finish reason of the request's last token.
	text, finish string
	// id is the token's id.
	id int
	// first marks the request's first token; reasoning marks a token of
	// its reasoning and reasoningEnd the reasoning's last token.
	first, reasoning, reasoningEnd bool
}

// chunkWriter writes the server-sent events of one streamed response.
type chunkWriter interface {
	// begin appends what precedes the first token.
	begin(dst []byte) []byte
	// token appends the event(s) of one token.
	token(dst []byte, t genToken) []byte
	// end appends what follows the last token, the response finished.
	end(dst []byte) []byte
}

// completionsWriter writes completions and chat completions chunks in
// vLLM's format. Reasoning goes out as vLLM serves it: chat deltas
// carry it in reasoning_content (as vLLM's reasoning parsers, SGLang and
// llama.cpp name it), and completions text carries it between <think>
// and </think> (the parsers serve chat completions only, so vLLM's
// completions text holds the tags the model generated).
type completionsWriter struct {
	e  *encoder
	rs *response
}

func (c completionsWriter) begin(dst []byte) []byte { return dst }

func (c completionsWriter) token(dst []byte, t genToken) []byte {
	if t.first && c.e.chat {
		dst = c.e.role(dst)
	}
	if !t.reasoning {
		return c.e.token(dst, t.text, t.finish)
	}
	if c.e.chat {
		return c.e.reasoning(dst, t.text, t.finish)
	}
	return c.e.token(dst, tagged(t), t.finish)
}

func (c completionsWriter) end(dst []byte) []byte {
	if c.rs.g.includeUsage {
		dst = c.e.usage(dst, c.rs.usage())
	}
	return append(dst, sseDone...)
}

// tagged is a reasoning token's text with the <think> tag before the
// reasoning's first token and </think> after its last.
func tagged(t genToken) string {
	s := t.text
	if t.first {
		s = "<think>" + s
	}
	if t.reasoningEnd {
		s += "</think>"
	}
	return s
}
