package client_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// recordReply keeps a forwarded answer.
type recordReply struct {
	status int
	body   bytes.Buffer
}

func (r *recordReply) Start(status int, _ http.Header) { r.status = status }
func (r *recordReply) Write(p []byte) (int, error)     { return r.body.Write(p) }

// TestForwardMeasuresAsDo passes a caller's body through to the mock
// and checks that the answer reaches the Reply whole and is measured as
// Do measures its own request: the same chunks, token counts and cached
// tokens (the prompt sent twice hits the cache the second time).
func TestForwardMeasuresAsDo(t *testing.T) {
	base := startMockWith(t, mockserver.Options{TimeScale: 0.05})
	c := client.New(client.Options{Stream: true})
	defer c.Close()
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	prompt := strings.Repeat("alpha beta gamma delta ", 16)
	for _, streamed := range []bool{true, false} {
		body := `{"model":"mock-model","prompt":"` + prompt + `","max_tokens":5,"stream":false}`
		if streamed {
			body = `{"model":"mock-model","prompt":"` + prompt + `","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`
		}
		rp := &recordReply{}
		fwd := &results.Result{}
		c.Forward(context.Background(), base, &client.Forward{Path: "/v1/completions", Body: []byte(body), Reply: rp}, fwd, now, nil)
		do := &results.Result{}
		c.Do(context.Background(), base, &traces.Request{ID: "x", Prompt: prompt, OutputTokens: 5}, do, now, nil)
		if !fwd.OK() || rp.status != http.StatusOK || fwd.CompletionTokens != 5 || fwd.PromptTokens != do.PromptTokens ||
			fwd.NoCached || fwd.FirstToken == 0 || fwd.Done < fwd.FirstToken {
			t.Errorf("streamed %v: forwarded %+v (status %d), direct %+v", streamed, fwd, rp.status, do)
		}
		if do.CachedTokens == 0 {
			t.Errorf("streamed %v: the second send of the prompt hit nothing: %+v", streamed, do)
		}
		if streamed && (fwd.Chunks != 5 || !strings.HasSuffix(strings.TrimSpace(rp.body.String()), "data: [DONE]")) {
			t.Errorf("streamed answer: %d chunks, body ends %q", fwd.Chunks, tail(rp.body.String()))
		}
	}
}

func tail(s string) string {
	if len(s) > 40 {
		return s[len(s)-40:]
	}
	return s
}
