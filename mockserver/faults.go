package mockserver

import (
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// faults draws the injected faults of one replica from a seeded
// generator and counts them.
type faults struct {
	cfg   FaultConfig
	mu    sync.Mutex
	rng   *rand.Rand
	count *prometheus.CounterVec
}

func newFaults(cfg FaultConfig, seed int64) *faults {
	return &faults{cfg: cfg.withDefaults(), rng: rand.New(rand.NewPCG(uint64(seed), 0x6661756c74))}
}

// hit draws one Bernoulli(p) and counts it under kind when true.
func (f *faults) hit(p float64, kind string) bool {
	if p <= 0 {
		return false
	}
	f.mu.Lock()
	ok := f.rng.Float64() < p
	f.mu.Unlock()
	if ok && f.count != nil {
		f.count.WithLabelValues(kind).Inc()
	}
	return ok
}

// injectError returns the status to answer with instead of serving, or 0.
func (f *faults) injectError() int {
	if f.hit(f.cfg.ErrorRate, "error") {
		return f.cfg.ErrorStatus
	}
	return 0
}

// retryAfter returns the Retry-After seconds for injected errors (0: none).
func (f *faults) retryAfter() int {
	if f.cfg.RetryAfter <= 0 {
		return 0
	}
	return int((f.cfg.RetryAfter + time.Second - 1) / time.Second)
}

// stall returns the stall to add after a step (0 usually).
func (f *faults) stall() time.Duration {
	if f.hit(f.cfg.StallRate, "stall") {
		return f.cfg.Stall
	}
	return 0
}

// disconnectAfter returns after how many tokens to cut a stream, or −1.
func (f *faults) disconnectAfter() int {
	if f.hit(f.cfg.DisconnectRate, "disconnect") {
		return f.cfg.DisconnectAfter
	}
	return -1
}

// slowFirstByte returns how long to hold a request before serving it.
func (f *faults) slowFirstByte() time.Duration {
	if f.hit(f.cfg.SlowFirstByteRate, "slow_first_byte") {
		return f.cfg.SlowFirstByte
	}
	return 0
}

// refusingListener resets a drawn share of accepted connections at once.
type refusingListener struct {
	net.Listener
	f *faults
}

// Accept implements net.Listener.
func (l refusingListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if !l.f.hit(l.f.cfg.RefuseRate, "refuse") {
			return c, nil
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with RST: the client sees a reset
		}
		_ = c.Close()
	}
}
