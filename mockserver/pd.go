package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Roles of a replica in prefill/decode disaggregation (Options.Role).
const (
	// RoleBoth serves plain requests, prefill requests
	// (kv_transfer_params.do_remote_decode) and decode requests
	// (do_remote_prefill), as a vLLM instance with NixlConnector in
	// kv_role kv_both does.
	RoleBoth = "both"
	// RolePrefill refuses decode requests (do_remote_prefill).
	RolePrefill = "prefill"
	// RoleDecode refuses prefill requests (do_remote_decode).
	RoleDecode = "decode"
)

// PrefillerHeader is llm-d's routing sidecar header: on a request to a
// decode pod it names the prefill pod (host:port) whose prefill the
// sidecar runs first (llm-d/llm-d-routing-sidecar). A decode replica of
// the mock honours it itself.
const PrefillerHeader = "x-prefiller-host-port"

// TransferHeader is the mock's own response header giving the KV transfer
// time a decode request paid, in seconds of wall time; PrefillHeader
// gives the prefill round trip a decode replica ran for
// PrefillerHeader, in seconds. vLLM sends neither.
const (
	TransferHeader = "X-Tracebench-Kv-Transfer"
	PrefillHeader  = "X-Tracebench-Prefill"
)

// validRole checks Options.Role ("" is RoleBoth).
func validRole(r string) error {
	switch r {
	case "", RoleBoth, RolePrefill, RoleDecode:
		return nil
	}
	return fmt.Errorf("role %q: want %s, %s or %s", r, RolePrefill, RoleDecode, RoleBoth)
}

// kvTransferParams is vLLM's kv_transfer_params as a request carries it
// (NixlConnector: vllm/distributed/kv_transfer/kv_connector/v1/
// nixl_connector.py). Block ids, engine id, host and port are read as
// any JSON value: vLLM sends integers, llm-d-inference-sim strings, and
// vLLM's proxy example sends null in the prefill request.
type kvTransferParams struct {
	DoRemoteDecode  bool              `json:"do_remote_decode"`
	DoRemotePrefill bool              `json:"do_remote_prefill"`
	RemoteEngineID  any               `json:"remote_engine_id"`
	RemoteBlockIDs  []json.RawMessage `json:"remote_block_ids"`
	RemoteHost      any               `json:"remote_host"`
	RemotePort      any               `json:"remote_port"`
}

// kvTransferReply is the kv_transfer_params a prefill answer returns for
// the decode request, with the fields of vLLM's NixlConnector
// request_finished.
type kvTransferReply struct {
	DoRemoteDecode  bool   `json:"do_remote_decode"`
	DoRemotePrefill bool   `json:"do_remote_prefill"`
	RemoteEngineID  string `json:"remote_engine_id"`
	RemoteBlockIDs  []int  `json:"remote_block_ids"`
	RemoteHost      string `json:"remote_host"`
	RemotePort      int    `json:"remote_port"`
	TPSize          int    `json:"tp_size"`
}

// role is the replica's role (RoleBoth when unset).
func (s *Server) role() string {
	if s.opts.Role == "" {
		return RoleBoth
	}
	return s.opts.Role
}

// transferKV applies a request's kv_transfer_params: a prefill request
// is capped at one token; a decode request waits its KV transfer and
// skips the prefill of the transferred tokens; with PrefillerHeader the
// replica first runs the prefill on the named instance. It writes the
// error and reports false when the request cannot be served.
func (s *Server) transferKV(w http.ResponseWriter, r *http.Request, g *generation) bool {
	if h := r.Header.Get(PrefillerHeader); h != "" && (g.kv == nil || !g.kv.DoRemotePrefill) {
		if s.role() == RolePrefill {
			writeError(w, http.StatusBadRequest, "this replica's role is prefill: it takes no "+PrefillerHeader+" header", 0)
			return false
		}
		t0 := time.Now()
		kv, err := s.pullPrefill(r, g, h)
		if err != nil {
			writeError(w, http.StatusBadGateway, fmt.Sprintf("prefill on %s: %v", h, err), 0)
			return false
		}
		g.kv = kv
		w.Header().Set(PrefillHeader, strconv.FormatFloat(time.Since(t0).Seconds(), 'f', 6, 64))
	}
	if g.kv == nil {
		return true
	}
	status, msg := s.checkKV(g)
	if status != 0 {
		writeError(w, status, msg, 0)
		return false
	}
	if g.remoteTokens > 0 {
		d := time.Duration(float64(s.opts.Engine.KVTransfer.Time(g.remoteTokens)) * s.opts.TimeScale)
		if !waitCtx(r, d) {
			return false
		}
		w.Header().Set(TransferHeader, strconv.FormatFloat(d.Seconds(), 'f', 6, 64))
	}
	return true
}

// checkKV validates g.kv against the role and sets the generation's
// prefill cap or transferred tokens; a non-zero status is an error.
func (s *Server) checkKV(g *generation) (int, string) {
	kv := g.kv
	switch {
	case kv.DoRemoteDecode && kv.DoRemotePrefill:
		return http.StatusBadRequest, "kv_transfer_params: do_remote_decode and do_remote_prefill are both true"
	case kv.DoRemoteDecode && s.role() == RoleDecode:
		return http.StatusBadRequest, "kv_transfer_params.do_remote_decode: this replica's role is decode"
	case kv.DoRemotePrefill && s.role() == RolePrefill:
		return http.StatusBadRequest, "kv_transfer_params.do_remote_prefill: this replica's role is prefill"
	case kv.DoRemoteDecode:
		// vLLM's disaggregated proxy sends the prefill with max_tokens 1.
		g.maxTokens, g.minTokens = 1, min(g.minTokens, 1)
	case kv.DoRemotePrefill:
		if kv.RemoteEngineID == nil || kv.RemoteEngineID == "" {
			return http.StatusBadRequest, "kv_transfer_params.remote_engine_id: missing (a decode request needs the prefill answer's params)"
		}
		if len(kv.RemoteBlockIDs) == 0 {
			return http.StatusBadRequest, "kv_transfer_params.remote_block_ids: empty (a decode request needs the prefill answer's params)"
		}
		g.remoteTokens = min(len(kv.RemoteBlockIDs)*s.opts.Engine.BlockSize, len(g.prompt))
	}
	return 0, ""
}

// kvReply builds the prefill answer's kv_transfer_params: this replica's
// engine id and address (as the client reached it) and one block id per
// prompt block.
func (s *Server) kvReply(g *generation, hostPort string) *kvTransferReply {
	n := (len(g.prompt) + s.opts.Engine.BlockSize - 1) / s.opts.Engine.BlockSize
	first := int(s.nextBlock.Add(uint64(n))) - n
	ids := make([]int, n)
	for i := range ids {
		ids[i] = first + i
	}
	host, port, _ := net.SplitHostPort(hostPort)
	p, _ := strconv.Atoi(port)
	return &kvTransferReply{DoRemotePrefill: true, RemoteEngineID: s.engineID, RemoteBlockIDs: ids,
		RemoteHost: host, RemotePort: p, TPSize: 1}
}

// pullPrefill runs the prefill of g on the instance at hostPort the way
// llm-d's routing sidecar does: the same request with max_tokens 1, not
// streamed, carrying kv_transfer_params.do_remote_decode; it returns the
// answer's kv_transfer_params for the local decode.
func (s *Server) pullPrefill(r *http.Request, g *generation, hostPort string) (*kvTransferParams, error) {
	var body map[string]any
	if err := json.Unmarshal(g.raw, &body); err != nil {
		return nil, fmt.Errorf("re-encode the request: %w", err)
	}
	body["kv_transfer_params"] = map[string]any{"do_remote_decode": true, "do_remote_prefill": false,
		"remote_engine_id": nil, "remote_block_ids": nil, "remote_host": nil, "remote_port": nil}
	body["max_tokens"], body["stream"] = 1, false
	delete(body, "stream_options")
	delete(body, "min_tokens")
	if _, ok := body["max_completion_tokens"]; ok {
		body["max_completion_tokens"] = 1
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode the prefill request: %w", err)
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, "http://"+hostPort+r.URL.Path, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("prefill request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.pdClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read the prefill answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(data))
	}
	var ans struct {
		KV *kvTransferParams `json:"kv_transfer_params"`
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("prefill answer: %w", err)
	}
	if ans.KV == nil {
		return nil, errors.New("the prefill answer carries no kv_transfer_params")
	}
	ans.KV.DoRemoteDecode, ans.KV.DoRemotePrefill = false, true
	return ans.KV, nil
}
