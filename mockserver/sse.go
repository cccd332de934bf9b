package mockserver

import (
	"encoding/json"
	"strconv"
)

// usage is the OpenAI usage object with vLLM's prompt_tokens_details
// (nil: null, for dialects that do not report cached tokens there).
// timings, when set, is llama.cpp's timings object, sent beside usage.
type usage struct {
	PromptTokens        int           `json:"prompt_tokens"`
	TotalTokens         int           `json:"total_tokens"`
	CompletionTokens    int           `json:"completion_tokens"`
	PromptTokensDetails *tokenDetails `json:"prompt_tokens_details"`
	// CompletionTokensDetails (OpenAI) and ReasoningTokens (SGLang's
	// top-level figure) carry the reasoning tokens where the dialect
	// reports them (nil: not reported).
	CompletionTokensDetails *completionDetails `json:"completion_tokens_details,omitempty"`
	ReasoningTokens         *int               `json:"reasoning_tokens,omitempty"`
	timings                 *timings
}

// completionDetails is usage.completion_tokens_details.
type completionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// timings is the part of llama.cpp's timings object the mock fills: the
// prompt tokens reused from the cache and those computed.
type timings struct {
	CacheN  int `json:"cache_n"`
	PromptN int `json:"prompt_n"`
}

type tokenDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// sseDone ends a stream.
var sseDone = []byte("data: [DONE]\n\n")

// encoder writes the server-sent events of one streamed response in
// vLLM's format: completions chunks carry choices[0].text, chat chunks
// choices[0].delta (a role chunk first); the chunk of the last token
// carries finish_reason; a usage-only chunk with empty choices follows
// when stream_options.include_usage is set. Chunks are built by
// appending bytes, the hot path of a mock under load.
type encoder struct {
	chat bool
	head []byte // `data: {"id":…,"object":…,"created":…,"model":…,"choices":[`
}

func newEncoder(chat bool, id string, created int64, model string) *encoder {
	obj := "text_completion"
	if chat {
		obj = "chat.completion.chunk"
	}
	h := []byte(`data: {"id":`)
	h = appendJSONString(h, id)
	h = append(h, `,"object":"`...)
	h = append(h, obj...)
	h = append(h, `","created":`...)
	h = strconv.AppendInt(h, created, 10)
	h = append(h, `,"model":`...)
	h = appendJSONString(h, model)
	h = append(h, `,"choices":[`...)
	return &encoder{chat: chat, head: h}
}

// role appends the chat stream's first chunk (role, empty content).
func (e *encoder) role(dst []byte) []byte {
	dst = append(dst, e.head...)
	return append(dst, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
}

// token appends the chunk of one token's text; finish is "" or the
// finish reason.
func (e *encoder) token(dst []byte, text, finish string) []byte {
	dst = append(dst, e.head...)
	if e.chat {
		dst = append(dst, `{"index":0,"delta":{"content":`...)
		dst = appendJSONString(dst, text)
		dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	} else {
		dst = append(dst, `{"index":0,"text":`...)
		dst = appendJSONString(dst, text)
		dst = append(dst, `,"logprobs":null,"finish_reason":`...)
	}
	if finish == "" {
		dst = append(dst, "null"...)
	} else {
		dst = appendJSONString(dst, finish)
	}
	if !e.chat {
		dst = append(dst, `,"stop_reason":null`...)
	}
	return append(dst, "}]}\n\n"...)
}

// reasoning appends the chat chunk of one reasoning token, in
// delta.reasoning_content.
func (e *encoder) reasoning(dst []byte, text, finish string) []byte {
	dst = append(dst, e.head...)
	dst = append(dst, `{"index":0,"delta":{"reasoning_content":`...)
	dst = appendJSONString(dst, text)
	dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	if finish == "" {
		dst = append(dst, "null"...)
	} else {
		dst = appendJSONString(dst, finish)
	}
	return append(dst, "}]}\n\n"...)
}

// usage appends the usage-only final chunk.
func (e *encoder) usage(dst []byte, u usage) []byte {
	dst = append(dst, e.head...)
	dst = append(dst, `],"usage":{"prompt_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.PromptTokens), 10)
	dst = append(dst, `,"total_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.TotalTokens), 10)
	dst = append(dst, `,"completion_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.CompletionTokens), 10)
	if u.PromptTokensDetails == nil {
		dst = append(dst, `,"prompt_tokens_details":null`...)
	} else {
		dst = append(dst, `,"prompt_tokens_details":{"cached_tokens":`...)
		dst = strconv.AppendInt(dst, int64(u.PromptTokensDetails.CachedTokens), 10)
		dst = append(dst, "}"...)
	}
	if d := u.CompletionTokensDetails; d != nil {
		dst = append(dst, `,"completion_tokens_details":{"reasoning_tokens":`...)
		dst = strconv.AppendInt(dst, int64(d.ReasoningTokens), 10)
		dst = append(dst, '}')
	}
	if r := u.ReasoningTokens; r != nil {
		dst = append(dst, `,"reasoning_tokens":`...)
		dst = strconv.AppendInt(dst, int64(*r), 10)
	}
	dst = append(dst, '}')
	if t := u.timings; t != nil {
		dst = append(dst, `,"timings":{"cache_n":`...)
		dst = strconv.AppendInt(dst, int64(t.CacheN), 10)
		dst = append(dst, `,"prompt_n":`...)
		dst = strconv.AppendInt(dst, int64(t.PromptN), 10)
		dst = append(dst, '}')
	}
	return append(dst, "}\n\n"...)
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
