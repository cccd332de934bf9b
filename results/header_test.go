package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headerWorkload stands for a caller's raw config part (bench.Workload).
type headerWorkload struct {
	Trace string
	Rate  float64
}

// writeLines writes a results file of the given lines.
func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadHeader(t *testing.T) {
	const result = `{"result":{"seq":0,"status":200}}`
	tests := []struct {
		name   string
		header string
		want   string // error substring; "" for success
	}{
		{"current format", `{"header":{"version":"0.1.0","format":1,"policy":"p","config":{"workload":{"Trace":"t.jsonl","Rate":2},"api":"chat","stream":false}}}`, ""},
		{"before the format field", `{"header":{"version":"0.0.9","policy":"p","config":{"workload":{"Rate":2}}}}`, ""},
		{"another format", `{"header":{"version":"9.0.0","format":2,"policy":"p"}}`, "line 1: field header.format is 2"},
		{"mistyped field", `{"header":{"version":"0.1.0","config":{"workload":{},"stream":"yes"}}}`, "line 1: field header.config.stream: got JSON string, want bool"},
		{"mistyped part", `{"header":{"version":"0.1.0","config":{"workload":{"Rate":"fast"}}}}`, "line 1: field header.config.workload.Rate: got JSON string, want float64"},
		{"part missing", `{"header":{"version":"0.1.0","config":{"api":"chat"}}}`, "line 1: field header.config.workload: absent"},
		{"no config", `{"header":{"version":"0.1.0"}}`, "line 1: field header.config.workload: absent"},
		{"not a header", result, "line 1: first line is not a run header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeLines(t, tc.header, result)
			var w headerWorkload
			h, err := ReadHeader(path, HeaderPart{Name: "workload", Into: &w})
			if tc.want == "" {
				if err != nil || w.Rate != 2 {
					t.Fatalf("ReadHeader: %v, workload %+v; want rate 2", err, w)
				}
				if h.Policy != "p" {
					t.Errorf("policy %q, want p", h.Policy)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) ||
				strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v; want one line naming %s and %q", err, path, tc.want)
			}
		})
	}
}

// TestHeaderRoundTrip writes a header with every typed config field and
// reads it back unchanged, its format set by Create.
func TestHeaderRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	in := Header{Version: Version, Policy: "p", Backends: []string{"b0"}, Config: RunConfig{
		Workload: []byte(`{"Trace":"t","Rate":2}`), API: "chat", Model: "m", Stream: new(true), Scrape: true,
		ScrapeInterval: "1s", HeaderNames: []string{"X-Team"}, Dialect: "vllm", BenchCaches: "flushed: x", BenchOrder: "1 of 2"}}
	w, err := Create(path, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(Stop{Reason: "done"}); err != nil {
		t.Fatal(err)
	}
	var wl headerWorkload
	got, err := ReadHeader(path, HeaderPart{Name: "workload", Into: &wl})
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != HeaderFormat || got.Config.Model != "m" || got.Config.Stream == nil || !*got.Config.Stream ||
		got.Config.BenchOrder != "1 of 2" || wl != (headerWorkload{"t", 2}) {
		t.Fatalf("read back %+v, workload %+v", got, wl)
	}
}

// FuzzReadHeader feeds arbitrary first lines to the header reader: it
// must return a header or a one-line error naming the file, never panic.
func FuzzReadHeader(f *testing.F) {
	f.Add(`{"header":{"version":"0.1.0","format":1,"config":{"workload":{"Rate":2},"stream":true}}}`)
	f.Add(`{"header":{"format":7}}`)
	f.Add(`{"header":{"config":{"server":{"slots":"x"}}}}`)
	f.Fuzz(func(t *testing.T, line string) {
		path := filepath.Join(t.TempDir(), "run.jsonl")
		if err := os.WriteFile(path, []byte(line+"\n{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var w headerWorkload
		if _, err := ReadHeader(path, HeaderPart{Name: "workload", Into: &w}); err != nil &&
			(!strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("error %q: want one line naming the file", err)
		}
	})
}
