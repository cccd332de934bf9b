package mockserver

import (
	"encoding/json"
	"strconv"
	"strings"
)

// responsesWriter writes a Responses API stream as vLLM does
// (vllm/entrypoints/openai/responses/simple_streaming_events.py; each
// event as "event: TYPE\ndata: JSON\n\n", numbered by sequence_number):
// response.created and response.in_progress, then per output item
// (the reasoning, then the message) output_item.added and
// content_part.added, a delta event per token
// (response.reasoning_text.delta, response.output_text.delta), the
// item's .done events, and response.completed with the usage. There is
// no [DONE].
type responsesWriter struct {
	rs  *response
	seq int
	// item is the open output item: "" none, "reasoning" or "message";
	// items counts the items opened; id is the open item's id.
	item  string
	items int
	id    string
	// text is the open item's text so far (for its .done events); the
	// output items closed so far are kept for response.completed.
	text   strings.Builder
	output []respOutputItem
}

// respOutputItem is one output item of a response object.
type respOutputItem struct {
	ID      string        `json:"id"`
	Type    string        `json:"type"`
	Role    string        `json:"role,omitempty"`
	Status  string        `json:"status"`
	Summary []any         `json:"summary,omitempty"`
	Content []respContent `json:"content"`
}

// respContent is one content part of an output item.
type respContent struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations,omitempty"`
}

// respUsage is the Responses API usage object.
type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// respObject is a response object, in the order vLLM's ResponsesResponse
// writes the fields the mock fills.
type respObject struct {
	ID                string           `json:"id"`
	CreatedAt         int64            `json:"created_at"`
	IncompleteDetails any              `json:"incomplete_details"`
	Model             string           `json:"model"`
	Object            string           `json:"object"`
	Output            []respOutputItem `json:"output"`
	MaxOutputTokens   *int             `json:"max_output_tokens"`
	Status            string           `json:"status"`
	Usage             *respUsage       `json:"usage"`
}

// object is the response object in its state so far.
func (rs *response) object(status string, output []respOutputItem, u *respUsage) respObject {
	o := respObject{ID: rs.id, CreatedAt: rs.s.created, Model: rs.g.model, Object: "response",
		Output: output, Status: status, Usage: u}
	if o.Output == nil {
		o.Output = []respOutputItem{}
	}
	if rs.g.maxTokens > 0 {
		o.MaxOutputTokens = &rs.g.maxTokens
	}
	if status == "incomplete" {
		o.IncompleteDetails = map[string]string{"reason": "max_output_tokens"}
	}
	return o
}

// respUsageOf is the response's usage in the Responses API's terms.
func (rs *response) respUsageOf() *respUsage {
	u := rs.usage()
	r := &respUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	r.InputTokensDetails.CachedTokens = rs.cached
	r.OutputTokensDetails.ReasoningTokens = rs.reasoning
	return r
}

// status is a finished response's status: incomplete when it ran out of
// output tokens, as vLLM reports finish reason "length".
func (rs *response) status() string {
	if rs.reason == "length" {
		return "incomplete"
	}
	return "completed"
}

// event appends one event, numbering it.
func (w *responsesWriter) event(dst []byte, typ string, fields map[string]any) []byte {
	fields["type"] = typ
	fields["sequence_number"] = w.seq
	w.seq++
	b, _ := json.Marshal(fields) // maps of strings, numbers and the types above always encode
	dst = append(dst, "event: "...)
	dst = append(dst, typ...)
	dst = append(dst, "\ndata: "...)
	dst = append(dst, b...)
	return append(dst, "\n\n"...)
}

func (w *responsesWriter) begin(dst []byte) []byte {
	o := w.rs.object("in_progress", nil, nil)
	dst = w.event(dst, "response.created", map[string]any{"response": o})
	return w.event(dst, "response.in_progress", map[string]any{"response": o})
}

func (w *responsesWriter) token(dst []byte, t genToken) []byte {
	kind := "message"
	if t.reasoning {
		kind = "reasoning"
	}
	if w.item != kind {
		dst = w.closeItem(dst)
		dst = w.openItem(dst, kind)
	}
	if t.text == "" {
		return dst
	}
	w.text.WriteString(t.text)
	typ := "response.output_text.delta"
	if t.reasoning {
		typ = "response.reasoning_text.delta"
	}
	return w.delta(dst, typ, t.text, !t.reasoning)
}

// delta appends a delta event, built by appending bytes (the hot path,
// as the completions chunks are) with the fields in vLLM's order.
func (w *responsesWriter) delta(dst []byte, typ, text string, logprobs bool) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, typ...)
	dst = append(dst, "\ndata: {\"content_index\":0,\"delta\":"...)
	dst = appendJSONString(dst, text)
	dst = append(dst, `,"item_id":`...)
	dst = appendJSONString(dst, w.itemID())
	if logprobs {
		dst = append(dst, `,"logprobs":[]`...)
	}
	dst = append(dst, `,"output_index":`...)
	dst = strconv.AppendInt(dst, int64(w.items-1), 10)
	dst = append(dst, `,"sequence_number":`...)
	dst = strconv.AppendInt(dst, int64(w.seq), 10)
	w.seq++
	dst = append(dst, `,"type":`...)
	dst = appendJSONString(dst, typ)
	return append(dst, "}\n\n"...)
}

func (w *responsesWriter) end(dst []byte) []byte {
	dst = w.closeItem(dst)
	o := w.rs.object(w.rs.status(), w.output, w.rs.respUsageOf())
	return w.event(dst, "response.completed", map[string]any{"response": o})
}

// itemID is the open item's id.
func (w *responsesWriter) itemID() string { return w.id }

// newItemID is the id of output item i of kind.
func (rs *response) newItemID(kind string, i int) string {
	prefix := "msg_"
	if kind == "reasoning" {
		prefix = "rs_"
	}
	return prefix + strings.TrimPrefix(rs.id, "resp_") + "_" + strconv.Itoa(i)
}

// part is the content part type of an item kind.
func part(kind string) string {
	if kind == "reasoning" {
		return "reasoning_text"
	}
	return "output_text"
}

// openItem opens an output item of kind.
func (w *responsesWriter) openItem(dst []byte, kind string) []byte {
	w.item, w.items = kind, w.items+1
	w.id = w.rs.newItemID(kind, w.items-1)
	w.text.Reset()
	item := respOutputItem{ID: w.itemID(), Type: kind, Status: "in_progress", Content: []respContent{}}
	if kind == "message" {
		item.Role = "assistant"
	}
	dst = w.event(dst, "response.output_item.added", map[string]any{"output_index": w.items - 1, "item": item})
	return w.event(dst, "response.content_part.added", map[string]any{"content_index": 0, "item_id": item.ID,
		"output_index": w.items - 1, "part": respContent{Type: part(kind)}})
}

// closeItem closes the open item (if any) with its .done events.
func (w *responsesWriter) closeItem(dst []byte) []byte {
	if w.item == "" {
		return dst
	}
	id, idx, text, kind := w.itemID(), w.items-1, w.text.String(), w.item
	done := "response.output_text.done"
	if kind == "reasoning" {
		done = "response.reasoning_text.done"
	}
	c := respContent{Type: part(kind), Text: text}
	dst = w.event(dst, done, map[string]any{"content_index": 0, "item_id": id, "output_index": idx, "text": text})
	dst = w.event(dst, "response.content_part.done", map[string]any{"content_index": 0, "item_id": id,
		"output_index": idx, "part": c})
	item := respOutputItem{ID: id, Type: kind, Status: "completed", Content: []respContent{c}}
	if kind == "message" {
		item.Role = "assistant"
	}
	w.output = append(w.output, item)
	w.item = ""
	return w.event(dst, "response.output_item.done", map[string]any{"output_index": idx, "item": item})
}

// responsesBody is a non-streamed Responses API response: the reasoning
// and message items and the usage.
func (rs *response) responsesBody(reasoning, text string) respObject {
	var out []respOutputItem
	if rs.reasoning > 0 {
		out = append(out, respOutputItem{ID: rs.newItemID("reasoning", 0), Type: "reasoning",
			Status: "completed", Content: []respContent{{Type: "reasoning_text", Text: reasoning}}})
	}
	if text != "" || rs.out > rs.reasoning {
		out = append(out, respOutputItem{ID: rs.newItemID("message", len(out)),
			Type: "message", Role: "assistant", Status: "completed", Content: []respContent{{Type: "output_text", Text: text}}})
	}
	return rs.object(rs.status(), out, rs.respUsageOf())
}
