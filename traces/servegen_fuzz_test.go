package traces

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzServeGenTrace reads a chunk-N-trace.csv and, when it parses,
// generates (at most 4096 of) its requests with a fixed dataset: any
// error names the file, and the requests are in order with lengths from
// the dataset.
func FuzzServeGenTrace(f *testing.F) {
	f.Add([]byte("0,2.0,1.0,Gamma,1.0,0.5\n600,0.5,2.0,Weibull,0.25,8.0\n1200,0.0,0.0,,0.0,0.0\n"))
	f.Add([]byte("0,nan,nan,,nan,nan\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			ws, _, err := readServeGenTrace(bytes.NewReader(data), "chunk-1-trace.csv", skip)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "read trace chunk-1-trace.csv line ") && !strings.HasPrefix(err.Error(), "read chunk-1-trace.csv") ||
					strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %q does not name the file and line on one line", err)
				}
				continue
			}
			for i := 1; i < len(ws); i++ {
				if ws[i].Start <= ws[i-1].Start {
					t.Fatalf("windows out of order: %+v", ws)
				}
			}
			pdf := lengthPDF{Tokens: []int{3, 9}, Cum: []float64{0.5, 1}}
			c := serveGenClient{id: 1, windows: ws, lengths: []serveGenLengths{{Start: 0, Input: pdf, Output: pdf}}}
			g := newServeGenGen([]serveGenClient{c}, 1)
			var last Request
			for n := 0; n < 4096; n++ {
				r, err := g.next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if r.Arrival < last.Arrival || r.InputTokens != 3 && r.InputTokens != 9 {
					t.Fatalf("bad request %+v after %+v", r, last)
				}
				last = r
			}
		}
	})
}

// FuzzServeGenDataset reads a chunk-N-dataset.json: errors name file,
// line and field on one line; distributions are cumulative and sorted.
func FuzzServeGenDataset(f *testing.F) {
	f.Add([]byte(`{"0": {"input_tokens": "{100: 0.5, 2000: 0.5}", "output_tokens": "{10: 0.25, 50: 0.75}"}, "600": {"input_tokens": "{}", "output_tokens": "{}"}}`))
	f.Add([]byte("{\n \"0\": {\"input_tokens\": \"{0: 0.1, 64: 0.9}\", \"output_tokens\": \"{1: 1.0}\", \"reason_ratio\": \"{0.0: 1.0}\"}\n}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ls, err := readServeGenDataset(data, "chunk-1-dataset.json")
		if err != nil {
			if !strings.Contains(err.Error(), "chunk-1-dataset.json") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q does not name the file on one line", err)
			}
			return
		}
		for i, l := range ls {
			if i > 0 && l.Start <= ls[i-1].Start {
				t.Fatalf("windows out of order")
			}
			for _, p := range []lengthPDF{l.Input, l.Output} {
				if len(p.Tokens) == 0 || len(p.Tokens) != len(p.Cum) || p.Cum[len(p.Cum)-1] > 1+1e-6 {
					t.Fatalf("bad distribution %+v", p)
				}
				for j := 1; j < len(p.Tokens); j++ {
					if p.Tokens[j] <= p.Tokens[j-1] || p.Cum[j] < p.Cum[j-1] {
						t.Fatalf("unsorted distribution %+v", p)
					}
				}
				if v := p.sample(0.999999); v < 0 || v > MaxTokens {
					t.Fatalf("sample %d", v)
				}
			}
		}
	})
}
