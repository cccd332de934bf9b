package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HFPrefix selects a Hugging Face tokenizer.json in New: "hf:PATH".
const HFPrefix = "hf:"

// HF is a Hugging Face tokenizers BPE tokenizer read from a local
// tokenizer.json: added tokens, normalizer, pre-tokenizer, BPE model and
// post-processor, each as the tokenizers library (huggingface/tokenizers)
// applies them in Tokenizer.encode(text, add_special_tokens=True). It is
// safe for concurrent use.
type HF struct {
	name  string
	added *addedVocab
	norm  normalizer
	pre   preTokenizer
	bpe   *bpeModel
	post  postProcessor
}

// Name implements Tokenizer: "hf:" and the file's base name.
func (h *HF) Name() string { return HFPrefix + h.name }

// Encode implements Tokenizer: the ids HF tokenizers' encode gives with
// special tokens added by the post-processor.
func (h *HF) Encode(s string) []int {
	var ids []int
	for _, piece := range h.added.splitRaw(s) {
		if piece.id >= 0 {
			ids = append(ids, piece.id)
			continue
		}
		text := h.norm.normalize(piece.text)
		for _, p := range h.added.splitNormalized(text) {
			if p.id >= 0 {
				ids = append(ids, p.id)
				continue
			}
			for _, word := range h.pre.split(p.text, piece.start == 0 && p.start == 0) {
				ids = h.bpe.encodeWord(word, ids)
			}
		}
	}
	return h.post.apply(ids)
}

// hfFile is the part of tokenizer.json that is read.
type hfFile struct {
	AddedTokens   []hfAddedToken  `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	Model         json.RawMessage `json:"model"`
	PostProcessor json.RawMessage `json:"post_processor"`
}

// LoadHF reads a tokenizer.json. A component it does not implement is a
// one-line error naming the file and the component ("pre_tokenizer
// BertPreTokenizer is not supported").
func LoadHF(path string) (*HF, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	h, err := parseHF(data)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	h.name = filepath.Base(path)
	return h, nil
}

// parseHF builds the tokenizer from tokenizer.json's bytes.
func parseHF(data []byte) (*HF, error) {
	var f hfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %v", err)
	}
	h := &HF{}
	var err error
	if h.bpe, err = parseBPE(f.Model); err != nil {
		return nil, fmt.Errorf("model %w", err)
	}
	if h.norm, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("normalizer %w", err)
	}
	if h.pre, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("pre_tokenizer %w", err)
	}
	if h.post, err = parsePostProcessor(f.PostProcessor); err != nil {
		return nil, fmt.Errorf("post_processor %w", err)
	}
	if h.added, err = newAddedVocab(f.AddedTokens, h.norm); err != nil {
		return nil, fmt.Errorf("added_tokens: %w", err)
	}
	return h, nil
}

// component decodes the "type" of a tokenizer.json component; null gives "".
func component(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || strings.TrimSpace(string(raw)) == "null" {
		return "", nil
	}
	var t struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", fmt.Errorf("malformed: %v", err)
	}
	if t.Type == "" {
		return "", fmt.Errorf("no type")
	}
	return t.Type, nil
}

// unsupported is the error for a component type not implemented; the
// caller prefixes the component ("pre_tokenizer type ...").
func unsupported(typ string) error {
	return fmt.Errorf("type %s is not supported (docs/traces.md lists the supported ones)", typ)
}

// pattern is a tokenizer.json {"String": s} or {"Regex": r} pattern.
type pattern struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}
