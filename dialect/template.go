package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// templateMessages are messages of the given roles with empty contents.
func templateMessages(roles []string) []map[string]string {
	msgs := make([]map[string]string, len(roles))
	for i, r := range roles {
		msgs[i] = map[string]string{"role": r, "content": ""}
	}
	return msgs
}

// CanCountTemplate reports whether the dialect can measure what its chat
// template adds to a prompt (TemplateTokens).
func (d *Dialect) CanCountTemplate() bool {
	return d != nil && d.Endpoints.Tokenize != "" && (d.Endpoints.ApplyTemplate != "" || d.Endpoints.chatTokenizeBody != nil)
}

// TemplateTokens returns the prompt tokens the server's chat template
// adds to a conversation of messages with these roles (the generation
// prompt and special tokens included): the token count of the templated
// conversation with every content empty. llama.cpp renders it through
// /apply-template and counts it with /tokenize (special tokens added,
// as for a chat request); vLLM's /tokenize takes the messages itself.
func (d *Dialect) TemplateTokens(ctx context.Context, hc *http.Client, base, model string, roles []string) (int, error) {
	e := &d.Endpoints
	msgs := templateMessages(roles)
	switch {
	case e.chatTokenizeBody != nil:
		b, err := post(ctx, hc, base, e.Tokenize, e.chatTokenizeBody(model, msgs))
		if err != nil {
			return 0, err
		}
		ids, err := e.readTokens(b)
		return len(ids), err
	case e.ApplyTemplate != "" && e.Tokenize != "":
		b, err := post(ctx, hc, base, e.ApplyTemplate, map[string]any{"messages": msgs})
		if err != nil {
			return 0, err
		}
		var v struct {
			Prompt *string `json:"prompt"`
		}
		if err := json.Unmarshal(b, &v); err != nil || v.Prompt == nil {
			return 0, fmt.Errorf("%s%s: answer has no \"prompt\" string", Base(base), e.ApplyTemplate)
		}
		b, err = post(ctx, hc, base, e.Tokenize, map[string]any{"content": *v.Prompt, "add_special": true, "parse_special": true})
		if err != nil {
			return 0, err
		}
		ids, err := e.readTokens(b)
		return len(ids), err
	}
	return 0, fmt.Errorf("%s servers have no way to count the chat template's tokens", d.Name)
}
