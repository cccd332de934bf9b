package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// pdOptions is a fast replica in role.
func pdOptions(role string) Options {
	o := fastOptions()
	o.Role = role
	return o
}

// The vLLM two-step exchange: the prefill answer carries
// kv_transfer_params naming the prefill replica and one block id per
// prompt block; the decode request carrying them pays the transfer,
// reports the transferred prompt as cached and says how long it took.
func TestTwoStepExchange(t *testing.T) {
	_, pURL := startServer(t, pdOptions(RolePrefill))
	dsrv, dURL := startServer(t, pdOptions(RoleDecode))
	prompt := strings.Repeat("tok ", 40) // 40 tokens: 3 blocks of 16
	st, _, body := post(t, pURL+"/v1/completions", `{"prompt":"`+prompt+`","max_tokens":50,
		"kv_transfer_params":{"do_remote_decode":true,"do_remote_prefill":false,"remote_engine_id":null,
		"remote_block_ids":null,"remote_host":null,"remote_port":null}}`)
	if st != http.StatusOK {
		t.Fatalf("prefill: HTTP %d %s", st, body)
	}
	var ans struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
		KV kvTransferReply `json:"kv_transfer_params"`
	}
	if err := json.Unmarshal([]byte(body), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Choices[0].FinishReason != "length" || ans.Usage.CompletionTokens != 1 {
		t.Errorf("prefill answer: finish %q, %d tokens; want length, 1", ans.Choices[0].FinishReason, ans.Usage.CompletionTokens)
	}
	kv := ans.KV
	if !kv.DoRemotePrefill || kv.DoRemoteDecode || kv.RemoteEngineID == "" || len(kv.RemoteBlockIDs) != 3 ||
		kv.RemoteHost != "127.0.0.1" || !strings.HasSuffix(pURL, ":"+itoa(kv.RemotePort)) {
		t.Fatalf("kv_transfer_params %+v (prefill at %s)", kv, pURL)
	}
	params, _ := json.Marshal(kv)
	st, h, body := post(t, dURL+"/v1/completions", `{"prompt":"`+prompt+`","max_tokens":5,"kv_transfer_params":`+string(params)+`}`)
	if st != http.StatusOK {
		t.Fatalf("decode: HTTP %d %s", st, body)
	}
	if h.Get(TransferHeader) == "" {
		t.Errorf("decode answer has no %s header", TransferHeader)
	}
	if !strings.Contains(body, `"cached_tokens":39`) {
		t.Errorf("decode answer should report 39 cached tokens (40 transferred, the last recomputed): %s", body)
	}
	if got := dsrv.Stats().RemoteTokens; got != 39 {
		t.Errorf("decode engine's remote tokens %d, want 39", got)
	}
}

// llm-d's sidecar header: the decode replica runs the prefill on the
// named replica itself, then decodes with its params.
func TestPrefillerHeader(t *testing.T) {
	psrv, pURL := startServer(t, pdOptions(RolePrefill))
	dsrv, dURL := startServer(t, pdOptions(RoleDecode))
	req, _ := http.NewRequest(http.MethodPost, dURL+"/v1/completions",
		strings.NewReader(`{"prompt":"`+strings.Repeat("w ", 33)+`","max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`))
	req.Header.Set(PrefillerHeader, strings.TrimPrefix(pURL, "http://"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := readSSE(resp.Body, func() {})
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("decode: HTTP %d, %v", resp.StatusCode, err)
	}
	if resp.Header.Get(PrefillHeader) == "" || resp.Header.Get(TransferHeader) == "" {
		t.Errorf("headers %v: want %s and %s", resp.Header, PrefillHeader, TransferHeader)
	}
	if n := len(chunks); n < 4 {
		t.Errorf("%d chunks, want 3 tokens, usage and [DONE]", n)
	}
	if psrv.Stats().GenerationTokens != 1 || dsrv.Stats().RemoteTokens != 32 {
		t.Errorf("prefill generated %d tokens (want 1), decode took %d remote tokens (want 32)",
			psrv.Stats().GenerationTokens, dsrv.Stats().RemoteTokens)
	}
}

// Requests a role does not serve, and decode params without the prefill
// answer's fields, are refused with the field named.
func TestKVTransferRefusals(t *testing.T) {
	_, pURL := startServer(t, pdOptions(RolePrefill))
	_, dURL := startServer(t, pdOptions(RoleDecode))
	tests := []struct {
		name, url, kv, want string
		status              int
	}{
		{"prefill on decode", dURL, `{"do_remote_decode":true}`, "do_remote_decode", 400},
		{"decode on prefill", pURL, `{"do_remote_prefill":true,"remote_engine_id":"e","remote_block_ids":[1]}`, "do_remote_prefill", 400},
		{"both", dURL, `{"do_remote_prefill":true,"do_remote_decode":true}`, "both true", 400},
		{"no engine id", dURL, `{"do_remote_prefill":true,"remote_block_ids":[1]}`, "remote_engine_id", 400},
		{"no blocks", dURL, `{"do_remote_prefill":true,"remote_engine_id":"e"}`, "remote_block_ids", 400},
		{"bad type", dURL, `{"do_remote_prefill":"yes"}`, "do_remote_prefill", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, body := post(t, tt.url+"/v1/completions", `{"prompt":"a b c","max_tokens":2,"kv_transfer_params":`+tt.kv+`}`)
			if st != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("HTTP %d %s; want %d naming %s", st, body, tt.status, tt.want)
			}
		})
	}
	req, _ := http.NewRequest(http.MethodPost, dURL+"/v1/completions", strings.NewReader(`{"prompt":"a b","max_tokens":2}`))
	req.Header.Set(PrefillerHeader, "127.0.0.1:1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("unreachable prefiller: HTTP %d, want 502", resp.StatusCode)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// FuzzKVTransferParams: any completions body with kv_transfer_params is
// refused with a status or gives a one-token prefill or a decode taking
// between 1 and all of its prompt tokens from the remote prefill.
func FuzzKVTransferParams(f *testing.F) {
	f.Add([]byte(`{"prompt":"a b c","kv_transfer_params":{"do_remote_decode":true}}`), uint8(0))
	f.Add([]byte(`{"prompt":[1,2,3],"kv_transfer_params":{"do_remote_prefill":true,"remote_engine_id":"e","remote_block_ids":["1","2"]}}`), uint8(2))
	f.Add([]byte(`{"prompt":"x","kv_transfer_params":{"do_remote_prefill":true,"remote_engine_id":7,"remote_block_ids":[1],"remote_host":null}}`), uint8(1))
	tok := tokenizer.Whitespace{}
	roles := []string{RoleBoth, RolePrefill, RoleDecode}
	f.Fuzz(func(t *testing.T, body []byte, role uint8) {
		g, err := parseCompletion(body, tok)
		if err != nil || g.kv == nil {
			return
		}
		s := &Server{opts: Options{Engine: engine.DefaultConfig(), Role: roles[int(role)%len(roles)]}}
		status, msg := s.checkKV(g)
		switch {
		case status != 0:
			if msg == "" {
				t.Fatal("refused without a message")
			}
		case g.kv.DoRemoteDecode && g.maxTokens != 1:
			t.Fatalf("prefill request with max tokens %d", g.maxTokens)
		case g.kv.DoRemotePrefill && (g.remoteTokens < 1 || g.remoteTokens > len(g.prompt)):
			t.Fatalf("decode takes %d remote tokens of a %d-token prompt", g.remoteTokens, len(g.prompt))
		}
	})
}
