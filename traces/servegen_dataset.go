package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ServeGen dataset fields the generator draws request lengths from
// (alibaba/ServeGen, chunk-N-dataset.json of the language and reason
// models): prompt and output tokens.
const (
	serveGenInput  = "input_tokens"
	serveGenOutput = "output_tokens"
)

// lengthPDF is a token-length distribution: Tokens[i] has probability
// mass up to Cum[i] (cumulative, ascending Tokens, zero masses left out).
type lengthPDF struct {
	Tokens []int
	Cum    []float64
}

// sample returns the length at cumulative probability u in [0, 1): the
// first length whose cumulative mass reaches u, as ServeGen's
// np.searchsorted over the cumulated pdf does.
func (p lengthPDF) sample(u float64) int {
	i := sort.SearchFloat64s(p.Cum, u)
	if i >= len(p.Tokens) {
		i = len(p.Tokens) - 1
	}
	return p.Tokens[i]
}

// serveGenLengths is one dataset window: the input and output length
// distributions from its Start (seconds) until the next window.
type serveGenLengths struct {
	Start         int64
	Input, Output lengthPDF
}

// readServeGenDataset parses a chunk-N-dataset.json: an object from window
// start (seconds, as a string) to an object from field name to a Python
// dict literal "{tokens: probability, ...}" (read by ServeGen with
// ast.literal_eval). A window with an empty distribution in any field is
// left out, as ServeGen's loader does. Errors name file, line and field
// ("600.input_tokens").
func readServeGenDataset(data []byte, name string) ([]serveGenLengths, error) {
	d := &datasetDecoder{data: data, name: name, dec: json.NewDecoder(bytes.NewReader(data))}
	out, err := d.windows()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b serveGenLengths) int { return int(a.Start - b.Start) })
	for i := 1; i < len(out); i++ {
		if out[i].Start == out[i-1].Start {
			return nil, fmt.Errorf("read %s: window %d appears twice", name, out[i].Start)
		}
	}
	return out, nil
}

// datasetDecoder walks a dataset file token by token, so errors can give
// the line of the value at fault.
type datasetDecoder struct {
	data []byte
	name string
	dec  *json.Decoder
}

// errAt returns a ParseError at the decoder's position.
func (d *datasetDecoder) errAt(field string, err error) error {
	off := min(int(d.dec.InputOffset()), len(d.data))
	return &ParseError{File: d.name, Line: 1 + bytes.Count(d.data[:off], []byte("\n")), Field: field, Err: err}
}

// delim reads the next token and checks it is want.
func (d *datasetDecoder) delim(want json.Delim, field string) error {
	t, err := d.dec.Token()
	if err != nil {
		return d.errAt(field, fmt.Errorf("malformed JSON: %w", err))
	}
	if t != want {
		return d.errAt(field, fmt.Errorf("got %v, want %q", t, string(want)))
	}
	return nil
}

// windows reads the top-level object.
func (d *datasetDecoder) windows() ([]serveGenLengths, error) {
	if err := d.delim('{', ""); err != nil {
		return nil, err
	}
	var out []serveGenLengths
	for d.dec.More() {
		t, err := d.dec.Token()
		if err != nil {
			return nil, d.errAt("", fmt.Errorf("malformed JSON: %w", err))
		}
		key, _ := t.(string)
		start, err := strconv.ParseInt(key, 10, 64)
		if err != nil || start < 0 || start > maxServeGenWindow {
			return nil, d.errAt(key, fmt.Errorf("window %q: want whole seconds from 0 to %d", key, maxServeGenWindow))
		}
		w, keep, err := d.window(key)
		if err != nil {
			return nil, err
		}
		if keep {
			w.Start = start
			out = append(out, w)
		}
	}
	if err := d.delim('}', ""); err != nil {
		return nil, err
	}
	return out, nil
}

// window reads one window's fields; keep is false when a field is empty.
func (d *datasetDecoder) window(key string) (w serveGenLengths, keep bool, err error) {
	if err := d.delim('{', key); err != nil {
		return w, false, err
	}
	keep = true
	var have [2]bool
	for d.dec.More() {
		t, err := d.dec.Token()
		if err != nil {
			return w, false, d.errAt(key, fmt.Errorf("malformed JSON: %w", err))
		}
		field, _ := t.(string)
		path := key + "." + field
		var lit string
		if err := d.dec.Decode(&lit); err != nil {
			return w, false, d.errAt(path, fmt.Errorf("want a string holding a {tokens: probability} dict: %v", err))
		}
		if field != serveGenInput && field != serveGenOutput {
			keep = keep && strings.TrimSpace(strings.Trim(strings.TrimSpace(lit), "{}")) != ""
			continue
		}
		pdf, err := parseLengthPDF(lit)
		if err != nil {
			return w, false, d.errAt(path, err)
		}
		if len(pdf.Tokens) == 0 {
			keep = false
		}
		if field == serveGenInput {
			w.Input, have[0] = pdf, true
		} else {
			w.Output, have[1] = pdf, true
		}
	}
	if err := d.delim('}', key); err != nil {
		return w, false, err
	}
	for i, f := range []string{serveGenInput, serveGenOutput} {
		if keep && !have[i] {
			return w, false, d.errAt(key+"."+f, errors.New("missing (the generator needs input_tokens and output_tokens; multimodal datasets are not supported)"))
		}
	}
	return w, keep, nil
}

// parseLengthPDF parses "{12: 0.25, 40: 0.75}" (Python dict literal, keys
// token counts, values probabilities summing to 1 within 1e-6, the
// tolerance ServeGen's validation allows).
func parseLengthPDF(lit string) (lengthPDF, error) {
	s := strings.TrimSpace(lit)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return lengthPDF{}, fmt.Errorf("%.40q: want a {tokens: probability} dict", lit)
	}
	body := strings.TrimSpace(s[1 : len(s)-1])
	if body == "" {
		return lengthPDF{}, nil
	}
	type bin struct {
		tokens int
		p      float64
	}
	var bins []bin
	for _, item := range strings.Split(body, ",") {
		k, v, ok := strings.Cut(item, ":")
		if !ok {
			return lengthPDF{}, fmt.Errorf("entry %.40q: want tokens: probability", strings.TrimSpace(item))
		}
		tokens, err := strconv.Atoi(strings.TrimSpace(k))
		if err != nil || tokens < 0 || tokens > MaxTokens {
			return lengthPDF{}, fmt.Errorf("length %.40q: want a whole token count from 0 to %d", strings.TrimSpace(k), MaxTokens)
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || p < 0 || math.IsNaN(p) || math.IsInf(p, 0) {
			return lengthPDF{}, fmt.Errorf("probability %.40q of length %d: want a number from 0 to 1", strings.TrimSpace(v), tokens)
		}
		bins = append(bins, bin{tokens, p})
	}
	slices.SortFunc(bins, func(a, b bin) int { return a.tokens - b.tokens })
	var pdf lengthPDF
	sum := 0.0
	for i, b := range bins {
		if i > 0 && b.tokens == bins[i-1].tokens {
			return lengthPDF{}, fmt.Errorf("length %d appears twice", b.tokens)
		}
		sum += b.p
		if b.p > 0 {
			pdf.Tokens = append(pdf.Tokens, b.tokens)
			pdf.Cum = append(pdf.Cum, sum)
		}
	}
	if math.Abs(sum-1) > 1e-6 {
		return lengthPDF{}, fmt.Errorf("probabilities sum to %g, want 1", sum)
	}
	return pdf, nil
}
