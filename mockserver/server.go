package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/tracebench/tracebench/dialect"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// Server is one mock replica: an http.Handler serving the OpenAI/vLLM
// API from an engine that its driver goroutine steps in real time. Call
// Start before serving and Close when done.
type Server struct {
	opts    Options
	tok     tokenizer.Tokenizer
	vocab   tokenizer.OutputVocab
	drv     *driver
	met     *metrics
	faults  *faults
	mux     *http.ServeMux
	log     *slog.Logger
	created int64
	nextID  atomic.Uint64
	wg      sync.WaitGroup
	cancel  context.CancelFunc
	once    sync.Once
	stopped chan struct{} // closed by Close: handlers stop waiting
	inFleet bool          // the fleet logs the lateness summary, not Close
	kv      *kvPublisher  // nil unless Options.KVEvents.Endpoint is set
	// engineID names the replica in kv_transfer_params (remote_engine_id).
	engineID string
	// nextBlock numbers the block ids prefill answers return.
	nextBlock atomic.Uint64
	// pdClient sends the prefill a PrefillerHeader asks for.
	pdClient *http.Client
}

// NewServer builds a replica from opts (defaults filled in, then
// validated). Its output vocabulary is chosen so generated text
// tokenises back to the generated ids under opts.Tokenizer.
func NewServer(opts Options) (*Server, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	tok, err := tokenizer.New(opts.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("mock server: %w", err)
	}
	s := &Server{opts: opts, tok: tok, vocab: tokenizer.NewOutputVocab(tok), created: time.Now().Unix(), stopped: make(chan struct{}),
		log: opts.Logger.With("mock_model", opts.ModelName), pdClient: &http.Client{},
		engineID: fmt.Sprintf("mock-%016x", rand.Uint64())}
	cfg := opts.Engine
	cfg.OutputVocab = s.vocab.IDs()
	eng, err := engine.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("mock server: %w", err)
	}
	s.faults = newFaults(opts.Faults, opts.Engine.Seed)
	s.drv = newDriver(eng, opts.TimeScale, s.faults.stall, s.log)
	if opts.Engine.Batching == engine.Static {
		s.drv.window = opts.BatchWindow
	}
	if err := s.startKVEvents(eng); err != nil {
		return nil, err
	}
	s.met = newMetrics(opts.ModelName, s, opts.Engine)
	s.faults.count = s.met.faults
	s.drv.onStep = s.met.v1.step
	s.routes()
	return s, nil
}

// routes registers the endpoints.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/completions", s.handleGenerate(epCompletions))
	s.mux.HandleFunc("POST /v1/chat/completions", s.handleGenerate(epChat))
	if s.opts.Dialect != dialect.LlamaCpp { // llama-server has no Responses API
		s.mux.HandleFunc("POST /v1/responses", s.handleGenerate(epResponses))
	} else { // llama-server's native completion API
		s.mux.HandleFunc("POST /completion", s.handleGenerate(epNative))
	}
	s.mux.HandleFunc("GET /v1/models", s.handleModels)
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	s.mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"version":"tracebench-mock"}`))
	})
	s.dialectRoutes()
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Start launches the driver goroutine; it stops when ctx ends or Close
// is called. Start once.
func (s *Server) Start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.drv.run(ctx)
	}()
}

// Close stops the driver and waits for it, then logs the step lateness
// (WARN when its p99 is over 10 ms, INFO otherwise; a Fleet logs one line
// for all its replicas instead). Requests still streaming end without
// finishing (no [DONE]).
func (s *Server) Close() {
	s.once.Do(func() {
		if s.cancel != nil {
			s.cancel()
		}
		s.wg.Wait()
		s.kv.close()
		close(s.stopped)
		if !s.inFleet {
			logSummary(s.log, s.Lateness(), 1)
		}
	})
}

// joinFleet makes s replica i of a fleet: its log lines carry the replica
// index, its late-step warnings share the fleet's rate limit, and the
// fleet logs the lateness summary.
func (s *Server) joinFleet(i int, w *lateWarner) {
	s.inFleet = true
	s.log = s.log.With("replica", i)
	s.drv.log = s.log
	s.drv.late.warn = w
}

// Listener wraps l so the refuse-connection fault applies to it.
func (s *Server) Listener(l net.Listener) net.Listener {
	if s.faults.cfg.RefuseRate <= 0 {
		return l
	}
	return refusingListener{Listener: l, f: s.faults}
}

// Lateness returns the step lateness measured so far.
func (s *Server) Lateness() Lateness { return s.drv.late.summary() }

// Stats returns the engine's gauges and counters.
func (s *Server) Stats() engine.Stats { return s.drv.stats() }

// stats and lateness implement statsSource.
func (s *Server) stats() engine.Stats { return s.drv.stats() }
func (s *Server) lateness() *lateness { return s.drv.late }
func (s *Server) modelTimeToWall(d time.Duration) time.Duration {
	return time.Duration(float64(d) * s.opts.TimeScale)
}

// handleModels lists the served model (OpenAI list format, vLLM fields).
func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID          string  `json:"id"`
		Object      string  `json:"object"`
		Created     int64   `json:"created"`
		OwnedBy     string  `json:"owned_by"`
		Root        string  `json:"root"`
		Parent      *string `json:"parent"`
		MaxModelLen int     `json:"max_model_len"`
		Permission  []any   `json:"permission"`
	}
	body := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{{ID: s.opts.ModelName, Object: "model", Created: s.created, OwnedBy: owner(s.opts.Dialect),
		Root: s.opts.ModelName, MaxModelLen: s.opts.Engine.MaxModelLen, Permission: []any{}}}}
	w.Header().Set("Content-Type", "application/json")
	if s.opts.Dialect == dialect.LlamaCpp {
		w.Header().Set("Server", "llama.cpp")
	}
	_ = json.NewEncoder(w).Encode(body)
}
