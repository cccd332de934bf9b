package traces

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// jsonLogRecord is a proxy-captured request record: the time, the
// caller's ids, the OpenAI-format request (at the top level or under
// "request" or "body") and optionally the response's usage.
type jsonLogRecord struct {
	Timestamp json.RawMessage `json:"timestamp"`
	Time      json.RawMessage `json:"time"`
	TS        json.RawMessage `json:"ts"`
	ID        json.RawMessage `json:"id"`
	RequestID json.RawMessage `json:"request_id"`
	User      json.RawMessage `json:"user"`
	UserID    json.RawMessage `json:"user_id"`
	SessionID json.RawMessage `json:"session_id"`
	ConvID    json.RawMessage `json:"conversation_id"`
	Request   *openAIBody     `json:"request"`
	Body      *openAIBody     `json:"body"`
	Response  *struct {
		Usage *openAIUsage `json:"usage"`
	} `json:"response"`
	Usage *openAIUsage `json:"usage"`
	openAIBody
}

// openAIBody is the part of an OpenAI chat or completions request the
// import reads.
type openAIBody struct {
	Messages  []openAIMessage `json:"messages"`
	Prompt    json.RawMessage `json:"prompt"`
	User      json.RawMessage `json:"user"`
	MaxTokens *int            `json:"max_tokens"`
	MaxCompl  *int            `json:"max_completion_tokens"`
}

// openAIMessage is a chat message whose content is a string or a list
// of parts (only text parts are read).
type openAIMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// openAIUsage is a response's token usage.
type openAIUsage struct {
	CompletionTokens *int `json:"completion_tokens"`
}

// parseJSONRequest reads a JSON request record. A JSON line with neither
// messages nor prompt is not a request record.
func parseJSONRequest(line []byte) (loggedRequest, bool, error) {
	var rec jsonLogRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return loggedRequest{}, true, jsonFieldErr(err)
	}
	body := &rec.openAIBody
	for _, b := range []*openAIBody{rec.Request, rec.Body} {
		if b != nil {
			body = b
		}
	}
	if body.Messages == nil && len(body.Prompt) == 0 {
		return loggedRequest{}, false, nil
	}
	var out loggedRequest
	var err error
	if out.at, err = logTime(firstRaw(rec.Timestamp, rec.Time, rec.TS)); err != nil {
		return out, true, err
	}
	out.id = rawString(firstRaw(rec.ID, rec.RequestID))
	out.user = rawString(firstRaw(rec.User, rec.UserID, body.User))
	out.session = rawString(firstRaw(rec.SessionID, rec.ConvID))
	if out.text, out.tokens, err = promptOf(body); err != nil {
		return out, true, err
	}
	usage := rec.Usage
	if rec.Response != nil && rec.Response.Usage != nil {
		usage = rec.Response.Usage
	}
	switch {
	case usage != nil && usage.CompletionTokens != nil:
		out.output = *usage.CompletionTokens
	case body.MaxCompl != nil:
		out.output = *body.MaxCompl
	case body.MaxTokens != nil:
		out.output = *body.MaxTokens
	default:
		return out, true, fieldErr("max_tokens", "output length unknown: no response usage.completion_tokens, max_completion_tokens or max_tokens")
	}
	return out, true, nil
}

// promptOf returns a chat request's messages joined by newlines, or a
// completions prompt's text or token ids.
func promptOf(b *openAIBody) (string, []int, error) {
	if b.Messages != nil {
		parts := make([]string, 0, len(b.Messages))
		for i, m := range b.Messages {
			s, err := contentText(m.Content)
			if err != nil {
				return "", nil, fieldErr("messages["+strconv.Itoa(i)+"].content", "%v", err)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, "\n"), nil, nil
	}
	var s string
	if json.Unmarshal(b.Prompt, &s) == nil {
		return s, nil, nil
	}
	var ids []int
	if json.Unmarshal(b.Prompt, &ids) == nil {
		return "", ids, nil
	}
	var list []string
	if json.Unmarshal(b.Prompt, &list) == nil && len(list) == 1 {
		return list[0], nil, nil
	}
	return "", nil, fieldErr("prompt", "want a string, one string or token ids, got %.40s", b.Prompt)
}

// contentText reads a message content: a string, or parts whose text
// parts are joined.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type, Text string
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// logTime reads a record time: an RFC 3339 string, or a number of Unix
// seconds (milliseconds, microseconds or nanoseconds when its magnitude
// says so: ≥ 1e11, 1e14, 1e17 are past the year 5000 in seconds).
func logTime(raw json.RawMessage) (time.Time, error) {
	if len(raw) == 0 {
		return time.Time{}, fieldErr("timestamp", "missing (want timestamp, time or ts)")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return t, fieldErr("timestamp", "want RFC 3339 or Unix seconds, got %q", s)
		}
		return t, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return time.Time{}, fieldErr("timestamp", "want RFC 3339 or Unix seconds, got %s", raw)
	}
	scale := 1.0
	switch {
	case f >= 1e17:
		scale = 1e-9
	case f >= 1e14:
		scale = 1e-6
	case f >= 1e11:
		scale = 1e-3
	}
	sec := f * scale
	if sec >= maxUnixSeconds {
		return time.Time{}, fieldErr("timestamp", "%s out of range", raw)
	}
	return time.Unix(0, 0).Add(nsDur(sec * 1e9)), nil
}

// maxUnixSeconds bounds Unix times a Duration from 1970 can hold.
const maxUnixSeconds = float64(math.MaxInt64) / 1e9

// firstRaw returns the first non-empty, non-null value.
func firstRaw(vals ...json.RawMessage) json.RawMessage {
	for _, v := range vals {
		if len(v) > 0 && string(v) != "null" {
			return v
		}
	}
	return nil
}

// rawString reads a JSON string or number as a string ("" otherwise).
func rawString(raw json.RawMessage) string {
	s, err := sessionID(raw)
	if err != nil {
		return ""
	}
	return s
}
