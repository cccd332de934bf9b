package dialect

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer answers fixed bodies per "METHOD /path" and records calls.
type fakeServer struct {
	mu     sync.Mutex
	routes map[string]fakeAnswer
	calls  []string
	bodies []string
}

type fakeAnswer struct {
	status int
	body   string
	server string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	key := r.Method + " " + r.URL.RequestURI()
	f.mu.Lock()
	f.calls = append(f.calls, key)
	f.bodies = append(f.bodies, string(b))
	a, ok := f.routes[key]
	f.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if a.server != "" {
		w.Header().Set("Server", a.server)
	}
	w.WriteHeader(max(a.status, 200))
	_, _ = io.WriteString(w, a.body)
}

func serve(t *testing.T, routes map[string]fakeAnswer) (*fakeServer, string) {
	t.Helper()
	f := &fakeServer{routes: routes}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return f, ts.URL
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestDetect(t *testing.T) {
	models := func(owner string) fakeAnswer {
		return fakeAnswer{body: `{"object":"list","data":[{"id":"m","owned_by":"` + owner + `"}]}`}
	}
	for _, tc := range []struct {
		name   string
		routes map[string]fakeAnswer
		want   string
		reason string
	}{
		{"vllm owner", map[string]fakeAnswer{"GET /v1/models": models("vllm")}, VLLM, `owned_by "vllm"`},
		{"sglang owner", map[string]fakeAnswer{"GET /v1/models": models("sglang")}, SGLang, `owned_by "sglang"`},
		{"llama.cpp owner", map[string]fakeAnswer{"GET /v1/models": models("llamacpp")}, LlamaCpp, `owned_by "llamacpp"`},
		{"llama.cpp server header", map[string]fakeAnswer{"GET /v1/models": {body: `{"data":[{"id":"m","owned_by":"me"}]}`, server: "llama.cpp"}},
			LlamaCpp, "Server header"},
		{"json-wrapped metrics", map[string]fakeAnswer{"GET /metrics": {body: `"# TYPE llamacpp:n_decode_total counter\nllamacpp:n_decode_total 7\n"`}},
			LlamaCpp, "llamacpp:"},
		{"sglang metrics", map[string]fakeAnswer{"GET /v1/models": models("organization"), "GET /metrics": {body: "sglang:num_running_reqs{model_name=\"m\"} 0\n"}},
			SGLang, "sglang:"},
		{"plain openai", map[string]fakeAnswer{"GET /v1/models": models("openai")}, OpenAI, "without a known owner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, u := serve(t, tc.routes)
			det, err := Detect(ctx(t), http.DefaultClient, u+"/v1/")
			if err != nil {
				t.Fatal(err)
			}
			if det.Dialect.Name != tc.want || !strings.Contains(det.Reason, tc.reason) {
				t.Errorf("Detect = %s (%s), want %s (%s)", det.Dialect.Name, det.Reason, tc.want, tc.reason)
			}
		})
	}
	_, u := serve(t, nil)
	if _, err := Detect(ctx(t), http.DefaultClient, u); err == nil || !strings.Contains(err.Error(), u) {
		t.Errorf("a server answering no probe: error %v should name it", err)
	}
}

func TestFlush(t *testing.T) {
	vf, vu := serve(t, map[string]fakeAnswer{"POST /reset_prefix_cache": {}})
	sf, su := serve(t, map[string]fakeAnswer{"POST /flush_cache": {}})
	lf, lu := serve(t, map[string]fakeAnswer{"GET /slots": {body: `[{"id":0,"is_processing":false},{"id":1}]`},
		"POST /slots/0?action=erase": {body: `{"id_slot":0,"n_erased":12}`}, "POST /slots/1?action=erase": {body: `{}`}})
	_, refusing := serve(t, map[string]fakeAnswer{"GET /slots": {body: `[{"id":0}]`},
		"POST /slots/0?action=erase": {status: 501, body: `{"error":{"message":"This server does not support slots action."}}`}})
	for _, tc := range []struct {
		dialect, url string
		f            *fakeServer
		calls        []string
		err          string
	}{
		{VLLM, vu, vf, []string{"POST /reset_prefix_cache"}, ""},
		{SGLang, su, sf, []string{"POST /flush_cache"}, ""},
		{LlamaCpp, lu, lf, []string{"GET /slots", "POST /slots/0?action=erase", "POST /slots/1?action=erase"}, ""},
		{LlamaCpp, refusing, nil, nil, "does not support slots action"},
		{OpenAI, vu, nil, nil, "no cache flush"},
	} {
		d, _ := Lookup(tc.dialect)
		err := d.Flush(ctx(t), http.DefaultClient, tc.url)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.url) ||
				strings.Contains(err.Error(), "\n") {
				t.Errorf("%s flush: error %v, want one line naming %s and %q", tc.dialect, err, tc.url, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s flush: %v", tc.dialect, err)
			continue
		}
		if strings.Join(tc.f.calls, ",") != strings.Join(tc.calls, ",") {
			t.Errorf("%s flush calls %v, want %v", tc.dialect, tc.f.calls, tc.calls)
		}
	}
}

func TestTokenize(t *testing.T) {
	vf, vu := serve(t, map[string]fakeAnswer{"POST /tokenize": {body: `{"tokens":[1,2,3],"count":3}`},
		"POST /detokenize": {body: `{"prompt":"a b c"}`}})
	lf, lu := serve(t, map[string]fakeAnswer{"POST /tokenize": {body: `{"tokens":[22172,3186]}`},
		"POST /detokenize": {body: `{"content":" hello world"}`}})
	for _, tc := range []struct {
		dialect, url string
		f            *fakeServer
		ids          []int
		text         string
		reqField     string
	}{
		{VLLM, vu, vf, []int{1, 2, 3}, "a b c", "prompt"},
		{LlamaCpp, lu, lf, []int{22172, 3186}, " hello world", "content"},
	} {
		d, _ := Lookup(tc.dialect)
		if !d.CanTokenize() {
			t.Fatalf("%s cannot tokenize", tc.dialect)
		}
		ids, err := d.Tokenize(ctx(t), http.DefaultClient, tc.url, "m", "hello world")
		if err != nil || len(ids) != len(tc.ids) || ids[0] != tc.ids[0] {
			t.Errorf("%s Tokenize = %v, %v", tc.dialect, ids, err)
		}
		var sent map[string]any
		if err := json.Unmarshal([]byte(tc.f.bodies[0]), &sent); err != nil || sent[tc.reqField] != "hello world" {
			t.Errorf("%s tokenize body %s lacks %s", tc.dialect, tc.f.bodies[0], tc.reqField)
		}
		text, err := d.Detokenize(ctx(t), http.DefaultClient, tc.url, "m", tc.ids)
		if err != nil || text != tc.text {
			t.Errorf("%s Detokenize = %q, %v", tc.dialect, text, err)
		}
	}
	for _, name := range []string{SGLang, OpenAI} {
		d, _ := Lookup(name)
		if _, err := d.Tokenize(ctx(t), http.DefaultClient, vu, "m", "x"); err == nil || d.CanTokenize() {
			t.Errorf("%s has no tokenizer endpoints", name)
		}
	}
}

// TestTemplateTokens: vLLM counts the template through /tokenize with the
// messages; llama.cpp renders it with /apply-template and tokenizes the
// prompt with special tokens; SGLang and plain OpenAI servers cannot.
func TestTemplateTokens(t *testing.T) {
	vf, vu := serve(t, map[string]fakeAnswer{"POST /tokenize": {body: `{"tokens":[1,2,3,4],"count":4}`}})
	lf, lu := serve(t, map[string]fakeAnswer{"POST /apply-template": {body: `{"prompt":"<|im_start|>user\n<|im_end|>\n"}`},
		"POST /tokenize": {body: `{"tokens":[1,5,6,7,8]}`}})
	_, bad := serve(t, map[string]fakeAnswer{"POST /apply-template": {body: `{"text":"x"}`}})
	tests := []struct {
		dialect, url string
		f            *fakeServer
		want         int
		sent         []string // substrings of the request bodies, in order
	}{
		{VLLM, vu, vf, 4, []string{`"add_generation_prompt":true`}},
		{LlamaCpp, lu, lf, 5, []string{`"messages":[{"content":"","role":"user"}]`, `"add_special":true`}},
	}
	for _, tc := range tests {
		d, _ := Lookup(tc.dialect)
		n, err := d.TemplateTokens(ctx(t), http.DefaultClient, tc.url, "m", []string{"user"})
		if err != nil || n != tc.want || !d.CanCountTemplate() {
			t.Errorf("%s TemplateTokens = %d, %v; want %d", tc.dialect, n, err, tc.want)
		}
		for i, s := range tc.sent {
			if i >= len(tc.f.bodies) || !strings.Contains(tc.f.bodies[i], s) {
				t.Errorf("%s request %d: bodies %q lack %s", tc.dialect, i, tc.f.bodies, s)
			}
		}
	}
	d, _ := Lookup(LlamaCpp)
	if _, err := d.TemplateTokens(ctx(t), http.DefaultClient, bad, "m", []string{"user"}); err == nil ||
		!strings.Contains(err.Error(), "/apply-template") {
		t.Errorf("an answer without a prompt: err %v, want one naming /apply-template", err)
	}
	for _, name := range []string{SGLang, OpenAI} {
		d, _ := Lookup(name)
		if _, err := d.TemplateTokens(ctx(t), http.DefaultClient, vu, "m", []string{"user"}); err == nil || d.CanCountTemplate() {
			t.Errorf("%s cannot count its template", name)
		}
	}
}
