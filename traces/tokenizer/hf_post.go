package tokenizer

import (
	"encoding/json"
	"fmt"
)

// postProcessor adds the special tokens a model's encode adds around one
// sequence (tokenizers/src/processors, add_special_tokens=True).
type postProcessor struct {
	before, after []int
}

func (p postProcessor) apply(ids []int) []int {
	if len(p.before) == 0 && len(p.after) == 0 {
		return ids
	}
	out := make([]int, 0, len(p.before)+len(ids)+len(p.after))
	out = append(append(append(out, p.before...), ids...), p.after...)
	return out
}

// postJSON holds the fields of every supported post-processor.
type postJSON struct {
	Type       string            `json:"type"`
	Processors []json.RawMessage `json:"processors"`
	Single     []struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID string `json:"id"`
		} `json:"Sequence"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
	Sep []json.RawMessage `json:"sep"`
	Cls []json.RawMessage `json:"cls"`
}

// parsePostProcessor reads the post_processor section (null: none).
// ByteLevel only trims offsets and adds no id.
func parsePostProcessor(raw json.RawMessage) (postProcessor, error) {
	typ, err := component(raw)
	if err != nil || typ == "" {
		return postProcessor{}, err
	}
	var j postJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return postProcessor{}, fmt.Errorf("%s: %v", typ, err)
	}
	switch typ {
	case "ByteLevel":
		return postProcessor{}, nil
	case "Sequence":
		var p postProcessor
		for _, r := range j.Processors {
			q, err := parsePostProcessor(r)
			if err != nil {
				return postProcessor{}, err
			}
			// A later processor wraps what the earlier ones produced.
			p.before = append(append([]int{}, q.before...), p.before...)
			p.after = append(p.after, q.after...)
		}
		return p, nil
	case "TemplateProcessing":
		return parseTemplate(j)
	case "RobertaProcessing", "BertProcessing":
		cls, err := specialID(j.Cls)
		if err != nil {
			return postProcessor{}, fmt.Errorf("%s cls: %w", typ, err)
		}
		sep, err := specialID(j.Sep)
		if err != nil {
			return postProcessor{}, fmt.Errorf("%s sep: %w", typ, err)
		}
		return postProcessor{before: []int{cls}, after: []int{sep}}, nil
	}
	return postProcessor{}, unsupported(typ)
}

// parseTemplate reads TemplateProcessing's single-sequence template.
func parseTemplate(j postJSON) (postProcessor, error) {
	var p postProcessor
	seen := false
	for _, item := range j.Single {
		switch {
		case item.Sequence != nil:
			if seen {
				return p, fmt.Errorf("TemplateProcessing: the single template holds the sequence twice")
			}
			seen = true
		case item.SpecialToken != nil:
			st, ok := j.SpecialTokens[item.SpecialToken.ID]
			if !ok {
				return p, fmt.Errorf("TemplateProcessing: special token %q is not in special_tokens", item.SpecialToken.ID)
			}
			if seen {
				p.after = append(p.after, st.IDs...)
			} else {
				p.before = append(p.before, st.IDs...)
			}
		default:
			return p, fmt.Errorf("TemplateProcessing: a single template item is neither SpecialToken nor Sequence")
		}
	}
	if !seen {
		return p, fmt.Errorf("TemplateProcessing: the single template has no Sequence")
	}
	return p, nil
}

// specialID reads a ["token", id] pair.
func specialID(pair []json.RawMessage) (int, error) {
	var id int
	if len(pair) != 2 || json.Unmarshal(pair[1], &id) != nil {
		return 0, fmt.Errorf("want [token, id]")
	}
	return id, nil
}
