package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

func TestSummarizeTruncatedFile(t *testing.T) {
	full, err := os.ReadFile(filepath.Join("testdata", "results-round-robin.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// A killed run: the stop line is missing and the last Result is cut
	// in the middle.
	lines := bytes.SplitAfter(full, []byte("\n"))
	body := bytes.Join(lines[:len(lines)-3], nil)
	cut := append(body, lines[len(lines)-3][:40]...)
	s, err := metrics.SummarizeReader("killed.jsonl", bytes.NewReader(cut), metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 399 { // 400 results, the last one cut off
		t.Errorf("requests = %d, want 399", s.Requests)
	}
	joined := strings.Join(s.Warnings, "\n")
	for _, want := range []string{"the run was killed", "cut-off line"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", s.Warnings, want)
		}
	}
}

func TestSummarizeErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "empty"},
		{"no header", `{"result":{"seq":0}}` + "\n", "line 1: first line is not a run header"},
		{"bad middle line", `{"header":{"policy":"x"}}` + "\nnot json\n" + `{"stop":{"reason":"done"}}` + "\n", "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := metrics.SummarizeReader("r.jsonl", strings.NewReader(tt.text), metrics.DefaultOptions())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "r.jsonl") {
				t.Errorf("error = %v, want one naming r.jsonl and containing %q", err, tt.want)
			}
		})
	}
	if _, err := metrics.Summarize(filepath.Join(t.TempDir(), "missing.jsonl"), metrics.DefaultOptions()); err == nil {
		t.Error("missing file: no error")
	}
}

func FuzzSummarizeReader(f *testing.F) {
	f.Add([]byte(`{"header":{"policy":"p","backends":["a","b"]}}` + "\n" +
		`{"result":{"seq":0,"user":"u","backend":1,"intended":0,"sent":1000,"first_token":5000000,"done":9000000,` +
		`"chunks":3,"gaps":[{"v":2000,"n":2}],"prompt_tokens":10,"completion_tokens":3}}` + "\n" +
		`{"event":{"at":100,"source":"scrape:1","values":{"prefix_cache_hits_total":3,"prefix_cache_queries_total":9}}}` + "\n" +
		`{"stop":{"reason":"done","elapsed":9000000}}` + "\n"))
	f.Add([]byte(`{"header":{}}` + "\n" + `{"result":{"backend":-5,"intended":-9,"done":-3,"gaps":[{"v":-1,"n":-4}]}}` + "\n"))
	f.Add([]byte(`{"header":{}}` + "\n" + `{"event":{"at":5,"source":"multi-bin","values":{"bin0_b_target":4}}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := metrics.SummarizeReader("fuzz.jsonl", bytes.NewReader(b), metrics.DefaultOptions())
		if err != nil {
			return
		}
		if s.OK > s.Requests || s.SLA.Met > s.Requests {
			t.Errorf("ok %d, met %d of %d requests", s.OK, s.SLA.Met, s.Requests)
		}
		var out bytes.Buffer
		if err := WriteCSV(&out, []*metrics.Summary{s}); err != nil {
			t.Errorf("csv: %v", err)
		}
		if err := WriteJSON(&out, []*metrics.Summary{s}); err != nil {
			t.Errorf("json: %v", err)
		}
	})
}

func TestEmptyRunsRender(t *testing.T) {
	empty := metrics.NewAccumulator(results.Header{Policy: "idle", Backends: []string{"b0"}}, metrics.DefaultOptions()).Finish(nil)
	for _, runs := range [][]*metrics.Summary{nil, {empty}} {
		dir := t.TempDir()
		if err := WriteDir(dir, runs, RenderOptions{}); err != nil {
			t.Fatalf("%d runs: %v", len(runs), err)
		}
		var b bytes.Buffer
		if err := WriteTable(&b, runs); err != nil {
			t.Fatalf("%d runs: table: %v", len(runs), err)
		}
	}
	if !strings.Contains(strings.Join(empty.Warnings, "\n"), "no requests in the measured window") {
		t.Errorf("warnings = %q, want the empty-window warning", empty.Warnings)
	}
}
