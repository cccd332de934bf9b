package mockserver

import (
	"bytes"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// createdRE matches the Unix time in responses, which varies by run.
var createdRE = regexp.MustCompile(`"created":\d+`)

func TestWireFormatGolden(t *testing.T) {
	opts := fastOptions()
	opts.Engine.MaxModelLen = 32
	_, base := startServer(t, opts)
	reqs := []struct{ path, body string }{
		{"/v1/completions", `{"prompt":"the cat sat","max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`},
		{"/v1/completions", `{"prompt":[1,2,3],"max_tokens":2,"stream":true}`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stream":true,"stream_options":{"include_usage":true}}`},
		{"/v1/completions", `{"prompt":"the cat sat","max_tokens":3}`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":2}`},
		{"/v1/completions", `{"prompt":[1,2,3],"max_tokens":40}`},
	}
	var out bytes.Buffer
	for _, r := range reqs {
		resp, err := http.Post(base+r.path, "application/json", strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out.WriteString("POST " + r.path + " " + r.body + "\n")
		out.WriteString(resp.Status + " " + resp.Header.Get("Content-Type") + "\n")
		out.Write(createdRE.ReplaceAll(b, []byte(`"created":0`)))
		out.WriteString("\n")
	}
	golden(t, "wire.golden", out.Bytes())
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("%s differs (-want +got); rerun with -update if intended:\n%s", path, diff)
	}
}
