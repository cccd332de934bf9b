package results

import (
	"encoding/json"
	"strings"
)

// Answer is what a server generated for one Request, kept when the
// session's next turn carries it: the text of its content chunks, and
// the token ids where they are known (the simulator's engine).
type Answer struct {
	text strings.Builder
	ids  []int
}

// AddToken appends one generated token, its id and its text, as a
// virtual-time driver generates them.
func (a *Answer) AddToken(id int, text string) {
	a.ids = append(a.ids, id)
	a.text.WriteString(text)
}

// AddChunk appends the generated text of one streamed or whole response
// chunk (choices[].text, .delta.content or .message.content), of a
// Responses API output-text delta event, or of a llama.cpp native
// completion result (content).
func (a *Answer) AddChunk(data []byte) {
	var c struct {
		Choices []struct {
			Text    string                    `json:"text"`
			Delta   *struct{ Content string } `json:"delta"`
			Message *struct{ Content string } `json:"message"`
		} `json:"choices"`
		Type    string          `json:"type"`
		Delta   json.RawMessage `json:"delta"`
		Content string          `json:"content"`
	}
	if json.Unmarshal(data, &c) != nil {
		return
	}
	if c.Type == "response.output_text.delta" {
		var d string
		if json.Unmarshal(c.Delta, &d) == nil {
			a.text.WriteString(d)
		}
		return
	}
	a.text.WriteString(c.Content)
	for _, ch := range c.Choices {
		a.text.WriteString(ch.Text)
		if ch.Delta != nil {
			a.text.WriteString(ch.Delta.Content)
		}
		if ch.Message != nil {
			a.text.WriteString(ch.Message.Content)
		}
	}
}

// Text is the answer's text.
func (a *Answer) Text() string { return a.text.String() }

// IDs are the answer's token ids (nil where they are not known).
func (a *Answer) IDs() []int { return a.ids }
