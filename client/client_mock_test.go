package client_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// startMock runs one bundled mock replica on loopback, 20× faster than
// real time, with the given faults.
func startMock(t *testing.T, faults mockserver.FaultConfig) string {
	t.Helper()
	return startMockWith(t, mockserver.Options{TimeScale: 0.05, Faults: faults})
}

// startMockWith runs one bundled mock replica on loopback with o.
func startMockWith(t *testing.T, o mockserver.Options) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	f, err := mockserver.StartFleet(ctx, mockserver.FleetConfig{Replicas: 1, Options: o})
	if err != nil {
		cancel()
		t.Fatalf("start mock: %v", err)
	}
	t.Cleanup(func() { _ = f.Close(); cancel() })
	return f.URLs()[0]
}

// TestClientAgainstMock sends Requests to the bundled mock server in
// every request form and checks what the Client measured against what
// the mock serves: output length, prompt length, prefix cache hits on a
// repeated prompt, the model list and the scraped /metrics.
func TestClientAgainstMock(t *testing.T) {
	base := startMock(t, mockserver.FaultConfig{})
	ctx := context.Background()
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	prompt := strings.Repeat("alpha beta gamma delta ", 16) // 64 words
	tests := []struct {
		name string
		opts client.Options
		req  traces.Request
	}{
		{"completions text", client.Options{Stream: true}, traces.Request{ID: "a", Prompt: prompt, OutputTokens: 5}},
		{"completions token ids", client.Options{Stream: true, TokenExact: true},
			traces.Request{ID: "b", BlockIDs: []uint64{7, 8, 9, 10}, BlockSize: 16, InputTokens: 64, OutputTokens: 4}},
		{"chat", client.Options{API: client.APIChat, Stream: true}, traces.Request{ID: "c", Prompt: prompt, OutputTokens: 3}},
		{"not streamed", client.Options{}, traces.Request{ID: "d", Prompt: prompt, OutputTokens: 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := client.New(tc.opts)
			defer c.Close()
			models, err := client.ListModels(ctx, c, base)
			if err != nil || len(models) == 0 {
				t.Fatalf("ListModels = %v, %v", models, err)
			}
			c = client.New(withModel(tc.opts, models[0]))
			defer c.Close()
			var first, second results.Result
			c.Do(ctx, base, &tc.req, &first, now, nil)
			c.Do(ctx, base, &tc.req, &second, now, nil)
			for _, r := range []*results.Result{&first, &second} {
				if !r.OK() || r.CompletionTokens != tc.req.OutputTokens || r.PromptTokens < 60 {
					t.Fatalf("result: class %q err %q, %d completion tokens (want %d), %d prompt tokens",
						r.ErrClass, r.Err, r.CompletionTokens, tc.req.OutputTokens, r.PromptTokens)
				}
				if r.FirstToken < r.Sent || r.Done < r.FirstToken {
					t.Errorf("stamps out of order: sent %v first %v done %v", r.Sent, r.FirstToken, r.Done)
				}
			}
			if second.CachedTokens == 0 {
				t.Errorf("repeated prompt: no cached tokens reported")
			}
		})
	}
	m, err := replay.Scrape(ctx, nil, base, nil)
	if err != nil || !m.OK || m.PromptTokens == 0 || m.GenerationTokens == 0 || m.PrefixHits == 0 || m.NumGPUBlocks == 0 {
		t.Fatalf("Scrape = %+v, %v", m, err)
	}
}

func withModel(o client.Options, model string) client.Options {
	o.Model = model
	return o
}

// TestClientAgainstMockFaults checks the error class of each fault the
// mock injects.
func TestClientAgainstMockFaults(t *testing.T) {
	tests := []struct {
		name   string
		faults mockserver.FaultConfig
		want   string
	}{
		{"429", mockserver.FaultConfig{ErrorRate: 1, ErrorStatus: 429, RetryAfter: time.Second}, results.ErrHTTP4xx},
		{"503", mockserver.FaultConfig{ErrorRate: 1, ErrorStatus: 503}, results.ErrHTTP5xx},
		{"disconnect mid-stream", mockserver.FaultConfig{DisconnectRate: 1, DisconnectAfter: 2}, results.ErrStreamBroken},
		{"connection reset", mockserver.FaultConfig{RefuseRate: 1}, results.ErrConnect},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := startMock(t, tc.faults)
			c := client.New(client.Options{Stream: true, Model: mockserver.DefaultModelName})
			defer c.Close()
			start := time.Now()
			var res results.Result
			c.Do(context.Background(), base, &traces.Request{ID: "f", Prompt: "a b c", OutputTokens: 8}, &res,
				func() time.Duration { return time.Since(start) }, nil)
			if res.ErrClass != tc.want {
				t.Fatalf("ErrClass = %q (Err %q), want %q", res.ErrClass, res.Err, tc.want)
			}
		})
	}
}
