//go:build !race

package tokenizer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"
)

// realEngine is the llama.cpp server and model the tests may use when
// present (relative to this package), skipped otherwise.
const realEngine = "../../../shared/real-engine"

// TestHFMatchesLlamaCpp builds a Llama-2 tokenizer.json from the
// SentencePiece vocabulary of the real engine's GGUF model (merges from
// piece scores, as transformers' LlamaConverter builds them) and checks
// that it encodes ShareGPT prompts and edge cases to exactly the ids
// llama.cpp's /tokenize gives.
func TestHFMatchesLlamaCpp(t *testing.T) {
	model := filepath.Join(realEngine, "tiny-llama-h256-l4.gguf")
	server := filepath.Join(realEngine, "llama-server")
	sharegpt := "../../../shared/traces/sharegpt/ShareGPT_V3_filtered_500.json"
	for _, f := range []string{model, server, sharegpt} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s absent", f)
		}
	}
	tj, err := llamaTokenizerJSON(model)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, tj, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadHF(path)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"Hello world", "  leading spaces and   runs", "tabs\tand\nnewlines\n\n",
		"naïve café 東京 🚀 emoji", "x=1234567; y = f(x)**2 # code", "</s>special<s>", ""}
	texts = append(texts, humanTurns(t, sharegpt, 200, 4000)...)
	base := startLlamaServer(t, server, model)
	same, tokens := 0, 0
	for _, text := range texts {
		want := llamaTokenize(t, base, text)
		got := tok.Encode(text)
		tokens += len(want)
		if slices.Equal(got, want) {
			same++
			continue
		}
		t.Errorf("%.80q: %d ids differ from llama.cpp's %d", text, len(got), len(want))
	}
	t.Logf("%d of %d texts identical (%d tokens)", same, len(texts), tokens)
}

// humanTurns returns the first n human turns of a ShareGPT file, each cut
// at max bytes (on a rune boundary).
func humanTurns(t *testing.T, path string, n, max int) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var convs []struct {
		Conversations []struct {
			From  string `json:"from"`
			Value string `json:"value"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(data, &convs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range convs {
		for _, turn := range c.Conversations {
			if turn.From != "human" || turn.Value == "" || len(out) == n {
				continue
			}
			v := []rune(turn.Value)
			out = append(out, string(v[:min(len(v), max)]))
		}
	}
	return out
}

// startLlamaServer starts llama-server on a free 127.0.0.1 port, stopped
// when the test ends, and returns its base URL.
func startLlamaServer(t *testing.T, server, model string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, server, "-m", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"-np", "1", "-c", "4096", "-t", "1")
	if err := cmd.Start(); err != nil {
		cancel()
		t.Skipf("llama-server does not start here: %v", err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("llama-server not healthy within 30 s")
	return ""
}

// llamaTokenize asks llama.cpp for text's ids with BOS and special tokens.
func llamaTokenize(t *testing.T, base, text string) []int {
	body, _ := json.Marshal(map[string]any{"content": text, "add_special": true, "parse_special": true})
	resp, err := http.Post(base+"/tokenize", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Tokens []int `json:"tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r.Tokens
}

// llamaTokenizerJSON writes the tokenizer.json of a GGUF model with a
// SentencePiece ("llama") vocabulary in the layout of Llama-2's: Prepend
// ▁ and spaces → ▁, BPE with byte fallback and fused unk, merges of every
// split of a normal piece into two pieces, ordered by the piece's score
// (highest first; ties by the ids of the two halves), a BOS template.
func llamaTokenizerJSON(path string) ([]byte, error) {
	kv, err := readGGUFTokenizer(path)
	if err != nil {
		return nil, err
	}
	toks, scores, types := kv.tokens, kv.scores, kv.types
	vocab := make(map[string]int, len(toks))
	for i, s := range toks {
		vocab[s] = i
	}
	type m struct {
		l, r  string
		score float32
	}
	var merges []m
	for i, piece := range toks {
		if types[i] != 1 {
			continue
		}
		var local []m
		for k := 1; k < len(piece); k++ {
			l, r := piece[:k], piece[k:]
			if _, ok := vocab[l]; !ok {
				continue
			}
			if _, ok := vocab[r]; ok {
				local = append(local, m{l, r, scores[i]})
			}
		}
		sort.SliceStable(local, func(a, b int) bool {
			if vocab[local[a].l] != vocab[local[b].l] {
				return vocab[local[a].l] < vocab[local[b].l]
			}
			return vocab[local[a].r] < vocab[local[b].r]
		})
		merges = append(merges, local...)
	}
	sort.SliceStable(merges, func(a, b int) bool { return merges[a].score > merges[b].score })
	pairs := make([][2]string, len(merges))
	for i, x := range merges {
		pairs[i] = [2]string{x.l, x.r}
	}
	special := func(id int) map[string]any {
		return map[string]any{"id": id, "content": toks[id], "normalized": false, "special": true}
	}
	return json.Marshal(map[string]any{
		"added_tokens": []any{special(0), special(1), special(2)},
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Prepend", "prepend": "▁"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"}}},
		"post_processor": map[string]any{"type": "TemplateProcessing",
			"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>"}}, map[string]any{"Sequence": map[string]any{"id": "A"}}},
			"special_tokens": map[string]any{"<s>": map[string]any{"id": "<s>", "ids": []int{1}}}},
		"model": map[string]any{"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
			"vocab": vocab, "merges": pairs},
	})
}

// ggufTokenizer is the tokenizer metadata of a GGUF file.
type ggufTokenizer struct {
	tokens []string
	scores []float32
	types  []int32
}

// readGGUFTokenizer reads tokenizer.ggml.{tokens,scores,token_type} from
// a GGUF (v2/v3) header.
func readGGUFTokenizer(path string) (*ggufTokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var hdr struct {
		Magic   [4]byte
		Version uint32
		Tensors uint64
		KVs     uint64
	}
	if err := binary.Read(r, binary.LittleEndian, &hdr); err != nil || string(hdr.Magic[:]) != "GGUF" {
		return nil, fmt.Errorf("%s: not a GGUF file", path)
	}
	str := func() (string, error) {
		var n uint64
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return string(b), err
	}
	sizes := map[uint32]int{0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
	out := &ggufTokenizer{}
	for i := uint64(0); i < hdr.KVs; i++ {
		key, err := str()
		if err != nil {
			return nil, err
		}
		var typ uint32
		binary.Read(r, binary.LittleEndian, &typ)
		switch typ {
		case 8:
			if _, err := str(); err != nil {
				return nil, err
			}
		case 9:
			var at uint32
			var n uint64
			binary.Read(r, binary.LittleEndian, &at)
			binary.Read(r, binary.LittleEndian, &n)
			if at == 8 {
				list := make([]string, n)
				for j := range list {
					if list[j], err = str(); err != nil {
						return nil, err
					}
				}
				if key == "tokenizer.ggml.tokens" {
					out.tokens = list
				}
				continue
			}
			raw := make([]byte, int(n)*sizes[at])
			if _, err := io.ReadFull(r, raw); err != nil {
				return nil, err
			}
			switch key {
			case "tokenizer.ggml.scores":
				for j := 0; j < int(n); j++ {
					out.scores = append(out.scores, math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])))
				}
			case "tokenizer.ggml.token_type":
				for j := 0; j < int(n); j++ {
					out.types = append(out.types, int32(binary.LittleEndian.Uint32(raw[4*j:])))
				}
			}
		default:
			size, ok := sizes[typ]
			if !ok {
				return nil, fmt.Errorf("%s: GGUF value type %d", path, typ)
			}
			if _, err := r.Discard(size); err != nil {
				return nil, err
			}
		}
	}
	if len(out.tokens) == 0 || len(out.scores) != len(out.tokens) || len(out.types) != len(out.tokens) {
		return nil, fmt.Errorf("%s: no SentencePiece vocabulary with scores and types", path)
	}
	return out, nil
}
