package mockserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/tracebench/tracebench/mockserver/profile"
)

// startServer runs a replica behind an httptest server on 127.0.0.1.
func startServer(t testing.TB, opts Options) (*Server, string) {
	t.Helper()
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	ts := httptest.NewUnstartedServer(s)
	ts.Listener = s.Listener(ts.Listener)
	ts.Start()
	t.Cleanup(func() {
		cancel()
		ts.CloseClientConnections()
		ts.Close()
		s.Close()
	})
	return s, ts.URL
}

// fastOptions is a replica with the linear preset (5.74 ms per step).
func fastOptions() Options {
	cfg, _ := profile.BuiltinConfig("linear")
	return Options{Engine: cfg}
}

// chunk is one received SSE data payload and when it arrived.
type chunk struct {
	data string
	at   time.Time
}

// sse posts body to base+path and reads the event stream to its end.
func sse(t testing.TB, ctx context.Context, url, body string) (*http.Response, []chunk, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := readSSE(resp.Body, func() {})
	return resp, out, err
}

// sseUntilEOF posts body to url and reads the SSE stream to its end,
// calling onChunk after each data payload; it returns the payloads and
// the error that ended the request or the read, if any.
func sseUntilEOF(url, body string, onChunk func()) ([]chunk, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readSSE(resp.Body, onChunk)
}

// readSSE reads SSE data payloads from r to its end, stamping each and
// calling onChunk after it.
func readSSE(r io.Reader, onChunk func()) ([]chunk, error) {
	var out []chunk
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, chunk{d, time.Now()})
			onChunk()
		}
	}
	return out, sc.Err()
}

// streamChunk is the part of a streamed chunk tests read.
type streamChunk struct {
	Choices []struct {
		Text  string `json:"text"`
		Delta struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

func decode(t testing.TB, s string) streamChunk {
	t.Helper()
	var c streamChunk
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return c
}

// metricFamilies fetches and parses the server's /metrics.
func metricFamilies(t testing.TB, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// scrape returns the server's metrics as name{labels} → value for
// counters and gauges.
func scrape(t testing.TB, base string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for name, f := range metricFamilies(t, base) {
		for _, m := range f.GetMetric() {
			key := name
			for _, l := range m.GetLabel() {
				if l.GetName() != "model_name" {
					key += "{" + l.GetName() + "=" + l.GetValue() + "}"
				}
			}
			switch {
			case m.Counter != nil:
				out[key] = m.Counter.GetValue()
			case m.Gauge != nil:
				out[key] = m.Gauge.GetValue()
			case m.Histogram != nil:
				out[key+"_count"] = float64(m.Histogram.GetSampleCount())
			case m.Summary != nil:
				out[key+"_count"] = float64(m.Summary.GetSampleCount())
			}
		}
	}
	return out
}

// waitMetric polls /metrics until cond holds, at most 2 s (a bounded
// loop over real requests, not a sleep).
func waitMetric(t testing.TB, base string, cond func(map[string]float64) bool) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		m := scrape(t, base)
		if cond(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics condition not met within 2 s: %v", m)
		}
	}
}

// post sends a non-streamed request and returns status and body.
func post(t testing.TB, url, body string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// get fetches url.
func get(t testing.TB, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// httpGet returns the status of GET url.
func httpGet(url string) (int, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
