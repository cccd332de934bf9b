package mockserver

import (
	"context"
	"errors"
	"fmt"
	"github.com/tracebench/tracebench/kvevents"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"
)

// FleetConfig configures a fleet of mock replicas.
type FleetConfig struct {
	// Replicas is the number of servers (≥ 1).
	Replicas int
	// Host is the address to bind (default "127.0.0.1").
	Host string
	// BasePort is the first port; replicas take consecutive ports. 0
	// (default) gives each replica an ephemeral port.
	BasePort int
	// Options configure every replica; replica i's engine and fault seed
	// is Options.Engine.Seed + i.
	Options Options
	// KVEvents makes every replica publish KV events on Host: with a
	// BasePort, replica i's PUB socket is on its HTTP port +
	// KVEventPortOffset and its replay socket on the HTTP port +
	// KVReplayPortOffset; otherwise both take free ports (see
	// Fleet.KVEventEndpoints).
	KVEvents bool
	// KVConnect, with KVEvents, makes every replica's PUB socket dial
	// this consumer's bound SUB socket ("tcp://host:port") instead of
	// binding its own, with llm-d's topic "kv@<host>:<port>@<model>"
	// naming the replica's HTTP address; replay sockets are bound as
	// without it.
	KVConnect string
	// KVEncoding is how the replicas write events (default positional
	// arrays, vLLM's; kvevents.EncodingMap for named-field maps).
	KVEncoding kvevents.Encoding
}

// Default port offsets of a replica's KV event sockets from its HTTP
// port (the pattern a router derives from a target URL).
const (
	KVEventPortOffset  = 1000
	KVReplayPortOffset = 2000
)

// Fleet is a set of running mock replicas.
type Fleet struct {
	log     *slog.Logger
	warn    *lateWarner // shared by the replicas' late-step warnings
	servers []*Server
	https   []*http.Server
	urls    []string
	done    []chan struct{}
}

// StartFleet binds and starts the replicas; they run until Close or
// until ctx ends (then Close still releases the ports).
func StartFleet(ctx context.Context, cfg FleetConfig) (*Fleet, error) {
	if cfg.Replicas < 1 {
		return nil, fmt.Errorf("mock fleet: %d replicas: want at least 1", cfg.Replicas)
	}
	top := cfg.BasePort + cfg.Replicas - 1
	if cfg.KVEvents && cfg.BasePort > 0 {
		top += KVReplayPortOffset
	}
	if cfg.BasePort < 0 || top > 65535 {
		return nil, fmt.Errorf("mock fleet: base port %d with %d replicas: ports out of range", cfg.BasePort, cfg.Replicas)
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	o := cfg.Options.withDefaults()
	f := &Fleet{log: o.Logger.With("mock_model", o.ModelName), warn: &lateWarner{}}
	for i := range cfg.Replicas {
		if err := f.startOne(ctx, cfg, i); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	return f, nil
}

// startOne binds and starts replica i.
func (f *Fleet) startOne(ctx context.Context, cfg FleetConfig, i int) error {
	opts := cfg.Options.withDefaults()
	opts.Engine.Seed += int64(i)
	port := 0
	if cfg.BasePort > 0 {
		port = cfg.BasePort + i
	}
	l, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("mock replica %d: listen: %w", i, err)
	}
	if cfg.KVEvents {
		opts.KVEvents = fleetKVOptions(cfg, i, l.Addr().String(), opts.ModelName)
	}
	srv, err := NewServer(opts)
	if err != nil {
		_ = l.Close()
		return fmt.Errorf("mock replica %d: %w", i, err)
	}
	srv.joinFleet(i, f.warn)
	srv.Start(ctx)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(srv.Listener(l))
	}()
	f.servers, f.https, f.done = append(f.servers, srv), append(f.https, hs), append(f.done, done)
	f.urls = append(f.urls, "http://"+l.Addr().String())
	return nil
}

// URLs returns the replicas' base URLs (http://host:port), in order.
func (f *Fleet) URLs() []string { return append([]string(nil), f.urls...) }

// KVEventEndpoints returns each replica's KV event PUB and replay
// endpoints, in URL order (empty strings without FleetConfig.KVEvents).
func (f *Fleet) KVEventEndpoints() (pub, replay []string) {
	for _, s := range f.servers {
		p, r := s.KVEventEndpoints()
		pub, replay = append(pub, p), append(replay, r)
	}
	return pub, replay
}

// fleetKVOptions returns replica i's KV event options; addr is its HTTP
// listener's host:port.
func fleetKVOptions(cfg FleetConfig, i int, addr, model string) KVEventsOptions {
	o := KVEventsOptions{Encoding: cfg.KVEncoding}
	o.Endpoint, o.Replay = fleetKVEndpoints(cfg, i)
	if cfg.KVConnect != "" {
		o.Endpoint, o.Connect, o.Topic = cfg.KVConnect, true, "kv@"+addr+"@"+model
	}
	return o
}

// fleetKVEndpoints returns replica i's KV event bind addresses.
func fleetKVEndpoints(cfg FleetConfig, i int) (pub, replay string) {
	host := cfg.Host
	if host == "" {
		host = "127.0.0.1"
	}
	p, r := 0, 0
	if cfg.BasePort > 0 {
		p, r = cfg.BasePort+i+KVEventPortOffset, cfg.BasePort+i+KVReplayPortOffset
	}
	return "tcp://" + net.JoinHostPort(host, strconv.Itoa(p)), "tcp://" + net.JoinHostPort(host, strconv.Itoa(r))
}

// Servers returns the replicas, in URL order.
func (f *Fleet) Servers() []*Server { return append([]*Server(nil), f.servers...) }

// Close stops the drivers and closes the listeners and connections,
// then logs one step lateness summary over all replicas (WARN when its
// p99 is over 10 ms, INFO otherwise).
func (f *Fleet) Close() error {
	var errs []error
	for i, hs := range f.https {
		f.servers[i].Close()
		if err := hs.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close mock replica %d: %w", i, err))
		}
		<-f.done[i]
	}
	if len(f.servers) > 0 {
		logSummary(f.log, f.Lateness(), len(f.servers))
	}
	return errors.Join(errs...)
}

// Lateness returns the step lateness over all replicas' steps.
func (f *Fleet) Lateness() Lateness {
	all := newLateness()
	for _, s := range f.servers {
		s.drv.late.mergeInto(all)
	}
	return all.summary()
}
