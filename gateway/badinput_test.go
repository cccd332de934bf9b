package gateway

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
)

// TestBadRequests answers what the gateway cannot route with the status
// and, for a malformed body, an error naming the field; none of them
// reaches a backend or the results file.
func TestBadRequests(t *testing.T) {
	tg := startGateway(t, startMocks(t, 1, mockserver.Options{}), gwConfig{edit: func(o *Options) { o.MaxBody = 256 }})
	tests := []struct {
		name, path, body string
		code             int
		param            string // the field the error names ("" none)
	}{
		{"not JSON", "/v1/completions", `{"prompt":`, 400, ""},
		{"not an object", "/v1/completions", `[1,2]`, 400, ""},
		{"no prompt", "/v1/completions", `{"model":"m"}`, 400, "prompt"},
		{"prompt a number", "/v1/completions", `{"prompt":5}`, 400, "prompt"},
		{"prompt batch", "/v1/completions", `{"prompt":["a","b"]}`, 400, "prompt"},
		{"token ids not whole", "/v1/completions", `{"prompt":[1,2.5]}`, 400, "prompt"},
		{"max_tokens a string", "/v1/completions", `{"prompt":"a","max_tokens":"9"}`, 400, "max_tokens"},
		{"max_tokens negative", "/v1/completions", `{"prompt":"a","max_tokens":-1}`, 400, "max_tokens"},
		{"max_completion_tokens bad", "/v1/chat/completions", `{"messages":[{"role":"user","content":"a"}],"max_completion_tokens":1.5}`, 400, "max_completion_tokens"},
		{"stream a string", "/v1/completions", `{"prompt":"a","stream":"yes"}`, 400, "stream"},
		{"model a number", "/v1/completions", `{"prompt":"a","model":3}`, 400, "model"},
		{"no messages", "/v1/chat/completions", `{"prompt":"a"}`, 400, "messages"},
		{"content a number", "/v1/chat/completions", `{"messages":[{"role":"user","content":"a"},{"role":"user","content":7}]}`, 400, "messages[1].content"},
		{"oversized", "/v1/completions", `{"prompt":"` + strings.Repeat("a", 300) + `"}`, 413, ""},
		{"unknown endpoint", "/v1/embeddings", `{}`, 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := post(t, tg.url+tc.path, tc.body, nil)
			if code != tc.code {
				t.Fatalf("status %d, want %d: %s", code, tc.code, body)
			}
			if tc.param != "" && (!strings.Contains(body, `"param":"`+tc.param+`"`) || !strings.Contains(body, tc.param+":")) {
				t.Errorf("error does not name field %s: %s", tc.param, body)
			}
		})
	}
	resp, err := http.Get(tg.url + "/v1/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/completions: %d, want 405", resp.StatusCode)
	}
	tg.shutdown()
	if res := readResults(t, tg.results); len(res) != 0 {
		t.Errorf("%d results recorded for requests never routed", len(res))
	}
}

// TestAPIKey checks the key on every /v1 request (401 without it or
// with another), passes it to the backend, and writes it nowhere: not in
// the results file, not in the log.
func TestAPIKey(t *testing.T) {
	const key = "sk-gateway-secret-1234"
	var mu sync.Mutex
	var seen []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","owned_by":"vllm"}]}`)
			return
		}
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, `{"error":"upstream refused"}`)
	}))
	t.Cleanup(backend.Close)
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	tg := startGateway(t, []string{backend.URL}, gwConfig{client: client.Options{APIKey: key},
		edit: func(o *Options) { o.APIKey = key }})
	body := `{"prompt":"hello","max_tokens":1}`
	for _, tc := range []struct {
		auth string
		code int
	}{{"", 401}, {"Bearer wrong", 401}, {key, 401}, {"Bearer " + key, 502}} {
		code, _, answer := post(t, tg.url+"/v1/completions", body, map[string]string{"Authorization": tc.auth})
		if code != tc.code {
			t.Errorf("Authorization %q: status %d, want %d: %s", tc.auth, code, tc.code, answer)
		}
	}
	tg.shutdown()
	mu.Lock()
	defer mu.Unlock()
	if n := len(seen); n == 0 || seen[n-1] != "Bearer "+key {
		t.Errorf("backend saw Authorization %q, want the key passed on", seen)
	}
	file, err := os.ReadFile(tg.results)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(file), key) || strings.Contains(logs.String(), key) {
		t.Errorf("the key was written: results file or log holds it\nlog:\n%s", logs.String())
	}
	if res := readResults(t, tg.results); len(res) != 1 || res[0].ErrClass != results.ErrHTTP5xx {
		t.Errorf("want one http-5xx result for the authorized request, got %+v", res)
	}
}

// TestQueueFull answers 429 with Retry-After once MaxQueue requests are
// held, and records the rejection.
func TestQueueFull(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","owned_by":"vllm"}]}`)
			return
		}
		started <- struct{}{}
		<-release
		fmt.Fprint(w, `{"choices":[{"index":0,"text":"a","finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}}}`)
	}))
	t.Cleanup(backend.Close)
	tg := startGateway(t, []string{backend.URL}, gwConfig{edit: func(o *Options) {
		o.Capacity, o.MaxQueue = policies.Capacity{Requests: 1}, 1
	}})
	body := `{"prompt":"hello","max_tokens":1}`
	codes := make(chan int, 2)
	go func() { c, _, _ := post(t, tg.url+"/v1/completions", body, nil); codes <- c }()
	<-started // the first is in flight on the only backend slot
	go func() { c, _, _ := post(t, tg.url+"/v1/completions", body, nil); codes <- c }()
	waitFor(t, "the second request held", func() bool {
		tg.g.rt.mu.Lock()
		defer tg.g.rt.mu.Unlock()
		return tg.g.rt.d.Held() == 1
	})
	code, hdr, answer := post(t, tg.url+"/v1/completions", body, nil)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") != "1" {
		t.Errorf("third request: status %d Retry-After %q, want 429 and 1: %s", code, hdr.Get("Retry-After"), answer)
	}
	close(release)
	for range 2 {
		if c := <-codes; c != http.StatusOK {
			t.Errorf("a request within the limits got %d", c)
		}
	}
	tg.shutdown()
	classes := map[string]int{}
	for _, r := range readResults(t, tg.results) {
		classes[r.ErrClass]++
	}
	if classes[""] != 2 || classes[results.ErrRejected] != 1 {
		t.Errorf("results by class %v, want 2 ok and 1 rejected", classes)
	}
}

// TestUnknownDialect states a backend answering in no known dialect once
// in the log and in /metrics.
func TestUnknownDialect(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	urls := append(startMocks(t, 1, mockserver.Options{}), startMocks(t, 1, mockserver.Options{Dialect: "openai"})...)
	tg := startGateway(t, urls, gwConfig{})
	for range 3 {
		if code, _, body := post(t, tg.url+"/v1/completions", `{"prompt":"a b c","max_tokens":1}`, nil); code != 200 {
			t.Fatalf("status %d: %s", code, body)
		}
	}
	resp, err := http.Get(tg.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for i, want := range []string{"0", "1"} {
		line := fmt.Sprintf(`%s{backend="b%d",url="%s"} %s`, MetricUnknownDialect, i, urls[i], want)
		if !strings.Contains(string(page), line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	if n := strings.Count(logs.String(), "dialect tracebench does not know"); n != 1 {
		t.Errorf("the unknown dialect is logged %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), urls[1]) {
		t.Errorf("the log line does not name the backend:\n%s", logs.String())
	}
}
