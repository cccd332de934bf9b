package replay

import (
	"slices"

	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// turnRecord is what the next turn of a session needs of the turn it
// follows: that turn's prompt as the trace gave it and as it was sent,
// and the answer.
type turnRecord struct {
	id string
	// msgs, input, output and tokenIDs are the trace's: message count,
	// prompt and output lengths, token-id prompt length.
	msgs, input, output, tokenIDs int
	// sent is the prompt as sent (after feeding back the turn before).
	sentMsgs   []traces.Message
	sentIDs    []int
	sentInput  int
	text       string
	ids        []int
	completion int
	ok         bool
}

// newTurnRecord records a Request as the trace gave it (orig) and as it
// is sent (sent).
func newTurnRecord(orig, sent *traces.Request) *turnRecord {
	return &turnRecord{id: orig.ID, msgs: len(orig.Messages), input: orig.InputTokens, output: orig.OutputTokens,
		tokenIDs: len(orig.TokenIDs), sentMsgs: sent.Messages, sentIDs: sent.TokenIDs, sentInput: sent.InputTokens}
}

// finish records the outcome and the answer (ans may be nil).
func (t *turnRecord) finish(res *results.Result, ans *results.Answer) {
	t.ok, t.completion = res.OK(), res.CompletionTokens
	if ans != nil {
		t.text, t.ids = ans.Text(), ans.IDs()
	}
}

// feedBack rewrites r's prompt to carry the answer its session's last
// turn actually got, when r follows that turn and extends its prompt:
// the messages as sent, then the answer in place of the trace's, then
// r's new messages; a token-id prompt likewise with the answer's ids. A
// turn that produced no answer leaves the trace's in place.
func feedBack(r *traces.Request, last *turnRecord, preds []string) {
	if last == nil || !slices.Contains(preds, last.id) || last.completion == 0 {
		return
	}
	delta := last.sentInput - last.input + last.completion - last.output
	if fed, ok := feedMessages(r.Messages, last); ok {
		if r.Prompt != "" && r.Prompt == traces.JoinContents(r.Messages) {
			r.Prompt = traces.JoinContents(fed)
		}
		r.Messages = fed
		r.InputTokens = max(r.InputTokens+delta, 0)
		return
	}
	if ids, ok := feedIDs(r.TokenIDs, last); ok {
		r.TokenIDs = ids
		r.InputTokens = len(ids)
	}
}

// feedMessages splices the answer into msgs (false: msgs does not
// extend the last turn's messages with an assistant message, or there is
// no answer text).
func feedMessages(msgs []traces.Message, last *turnRecord) ([]traces.Message, bool) {
	m := last.msgs
	if last.text == "" || m == 0 || len(msgs) <= m || msgs[m].Role != "assistant" || len(last.sentMsgs) != m {
		return nil, false
	}
	for i := range m {
		if msgs[i].Role != last.sentMsgs[i].Role {
			return nil, false
		}
	}
	out := make([]traces.Message, 0, len(msgs))
	out = append(out, last.sentMsgs...)
	out = append(out, traces.Message{Role: "assistant", Content: last.text})
	return append(out, msgs[m+1:]...), true
}

// feedIDs splices the answer's token ids into a token-id prompt (false:
// no ids, or the prompt is not the last one's plus its answer).
func feedIDs(ids []int, last *turnRecord) ([]int, bool) {
	cut := last.tokenIDs + last.output
	if len(last.ids) == 0 || last.tokenIDs == 0 || len(ids) < cut {
		return nil, false
	}
	out := make([]int, 0, len(last.sentIDs)+len(last.ids)+len(ids)-cut)
	out = append(out, last.sentIDs...)
	out = append(out, last.ids...)
	return append(out, ids[cut:]...), true
}

// answered returns req's prompt extended by its answer, as the next turn
// of its session begins (nil when there is no answer to add): a chat
// history gains the answer as an assistant message and a text prompt the
// answer after a newline (the turns' contents joined); a token-id prompt
// gains the answer's ids.
func answered(req *traces.Request, a *results.Answer, completion int) *traces.Request {
	text := a.Text()
	r := *req
	switch {
	case len(req.TokenIDs) > 0 && len(a.IDs()) > 0:
		r.TokenIDs = append(slices.Clip(req.TokenIDs), a.IDs()...)
		r.InputTokens = len(r.TokenIDs)
		return &r
	case text == "" || len(req.TokenIDs) > 0 || len(req.BlockIDs) > 0:
		return nil
	}
	if len(req.Messages) > 0 {
		r.Messages = append(slices.Clip(req.Messages), traces.Message{Role: "assistant", Content: text})
	}
	r.Prompt = traces.PromptText(req) + "\n" + text
	r.InputTokens += completion
	return &r
}
