package mockserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// maxBody bounds a request body (32 MiB).
const maxBody = 32 << 20

// handleGenerate serves /v1/completions, /v1/chat/completions and
// /v1/responses (ep).
func (s *Server) handleGenerate(ep endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		arrival := time.Now()
		g, status, msg := s.parse(r, ep)
		if status != 0 {
			writeError(w, status, msg, 0)
			return
		}
		if st := s.faults.injectError(); st != 0 {
			writeError(w, st, fmt.Sprintf("injected fault: HTTP %d", st), s.faults.retryAfter())
			return
		}
		if d := s.faults.slowFirstByte(); d > 0 && !waitCtx(r, d) {
			return
		}
		if d := s.overhead(); d > 0 && !waitCtx(r, d) {
			return
		}
		if !s.transferKV(w, r, g) {
			return
		}
		if s.opts.MaxQueue > 0 && s.drv.waiting() >= s.opts.MaxQueue {
			writeError(w, http.StatusTooManyRequests,
				fmt.Sprintf("The server's queue is full (%d requests waiting); retry later.", s.opts.MaxQueue), 1)
			return
		}
		id, f, err := s.submit(g)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error(), 0)
			return
		}
		rs := &response{s: s, g: g, id: id, f: f, arrival: arrival, host: r.Host, slot: -1}
		if g.stream {
			rs.stream(w, r)
		} else {
			rs.whole(w, r)
		}
	}
}

// parse reads and validates the body; a non-zero status is an error.
func (s *Server) parse(r *http.Request, ep endpoint) (*generation, int, string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, http.StatusBadRequest, "read body: " + err.Error()
	}
	if len(body) > maxBody {
		return nil, http.StatusBadRequest, fmt.Sprintf("request body larger than %d bytes", maxBody)
	}
	var g *generation
	switch ep {
	case epChat:
		g, err = parseChat(body, s.tok)
	case epResponses:
		g, err = parseResponses(body, s.tok)
	case epNative:
		g, err = parseNative(body, s.tok)
	default:
		g, err = parseCompletion(body, s.tok)
	}
	if err != nil {
		return nil, http.StatusBadRequest, err.Error()
	}
	g.raw = body
	if g.model == "" {
		g.model = s.opts.ModelName
	}
	if g.model != s.opts.ModelName {
		known := slices.Contains(s.opts.LoRAModules, g.model)
		if s.opts.StrictModel && !known || len(s.opts.LoRAModules) > 0 && !known {
			return nil, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", g.model)
		}
		g.salt = "lora:" + g.model + "\x00" + g.salt
		g.lora = g.model
	}
	return g, 0, ""
}

// submit gives the generation to the engine under a new request id.
func (s *Server) submit(g *generation) (string, *inflight, error) {
	prefix := "cmpl-"
	switch {
	case g.chat:
		prefix = "chatcmpl-"
	case g.responses:
		prefix = "resp_"
	}
	id := prefix + strconv.FormatUint(s.nextID.Add(1), 10)
	maxTokens := g.maxTokens
	if maxTokens == 0 {
		maxTokens = s.opts.Engine.MaxModelLen - len(g.prompt)
		if maxTokens < 1 {
			le := &engine.LengthError{PromptTokens: len(g.prompt), MaxTokens: 1, Limit: s.opts.Engine.MaxModelLen}
			return "", nil, le
		}
	}
	f, err := s.drv.add(&engine.Request{ID: id, Prompt: g.prompt, MaxTokens: maxTokens, MinTokens: g.minTokens,
		IgnoreEOS: g.ignoreEOS, CacheSalt: g.salt, LoRA: g.lora, RemoteTokens: g.remoteTokens, Slot: g.slot})
	if err != nil {
		var le *engine.LengthError
		if errors.As(err, &le) {
			return "", nil, le
		}
		return "", nil, fmt.Errorf("add request: %w", err)
	}
	return id, f, nil
}

// waitCtx waits d unless the client goes away first (false).
func waitCtx(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// overhead is the engine profile's per-request time outside the engine,
// in wall time.
func (s *Server) overhead() time.Duration {
	return time.Duration(float64(s.opts.Engine.RequestOverhead) * s.opts.TimeScale)
}
