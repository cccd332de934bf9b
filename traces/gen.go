package traces

import (
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cespare/xxhash/v2"
)

// generator is the Source behind every workload: sessions (a single
// Request is a session of one turn) start one after another at gaps drawn
// by gap, their turns are merged in arrival order, and Next stops after
// limit Requests. Sessions are made as late as possible, so memory holds
// only the sessions in progress.
type generator struct {
	rng       *rand.Rand
	m         merger
	limit     int
	emitted   int
	sessions  int
	nextStart time.Duration
	// session builds session number i starting at start.
	session func(g *generator, i int, start time.Duration) []Request
	// gap draws the time from one session start to the next.
	gap func(g *generator) time.Duration
}

// newGenerator returns a generator seeded by seed on the named stream
// (each workload uses its own stream so equal seeds differ across
// workloads).
func newGenerator(seed uint64, stream string, limit int) *generator {
	return &generator{rng: rand.New(rand.NewPCG(seed, xxhash.Sum64String(stream))), limit: limit}
}

// Next implements Source.
func (g *generator) Next() (Request, error) {
	for g.emitted < g.limit {
		if r, ok := g.m.popUpTo(g.nextStart); ok {
			g.emitted++
			return r, nil
		}
		for _, r := range g.session(g, g.sessions, g.nextStart) {
			g.m.push(r)
		}
		g.sessions++
		g.nextStart = addDur(g.nextStart, g.gap(g))
	}
	return Request{}, io.EOF
}

// sessionGap checks turns_min ≤ turns_max and the parameters read so far
// (p's first error), then spaces g's sessions of tmin to tmax turns as a
// Poisson process whose requests arrive at rate per second on average.
func (g *generator) sessionGap(p *params, tmin, tmax int, rate float64) error {
	p.rangeOK("turns_min", tmin, "turns_max", tmax)
	if p.err != nil {
		return p.err
	}
	g.gap = expGap(rate / (float64(tmin+tmax) / 2))
	return nil
}

// expGap returns a gap function for a Poisson process of rate per second.
func expGap(rate float64) func(*generator) time.Duration {
	return func(g *generator) time.Duration { return secondsDur(g.rng.ExpFloat64() / rate) }
}

// secondsDur converts non-negative seconds to a Duration, rounded to the
// nanosecond and saturating at the largest Duration (about 292 years).
func secondsDur(s float64) time.Duration { return nsDur(s * 1e9) }

// nsDur converts non-negative nanoseconds to a Duration, saturating at
// the largest Duration (NaN and negatives give 0).
func nsDur(ns float64) time.Duration {
	ns = math.Round(ns)
	switch {
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case !(ns > 0):
		return 0
	}
	return time.Duration(ns)
}

// addDur returns a+b for a, b >= 0, saturating at the largest Duration,
// so a slow rate or a long think time cannot wrap arrivals negative.
func addDur(a, b time.Duration) time.Duration {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// uniformInt draws an integer uniform in [lo, hi].
func (g *generator) uniformInt(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + g.rng.IntN(hi-lo+1)
}

// jitter draws an integer uniform in [mean·(1−f), mean·(1+f)], kept in
// [1, MaxTokens].
func (g *generator) jitter(mean int, f float64) int {
	lo := int(math.Round(float64(mean) * (1 - f)))
	hi := int(math.Round(float64(mean) * (1 + f)))
	return min(MaxTokens, max(1, g.uniformInt(lo, hi)))
}

// key derives a content key from the seed-independent parts plus the
// generator's per-run salt, so texts are reproducible and distinct.
func contentKey(seed uint64, parts ...any) uint64 {
	d := xxhash.New()
	var b [8]byte
	for i := range b {
		b[i] = byte(seed >> (8 * i))
	}
	d.Write(b[:])
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			d.WriteString(v)
		case int:
			for i := range b {
				b[i] = byte(uint64(v) >> (8 * i))
			}
			d.Write(b[:])
		}
		d.Write([]byte{0})
	}
	return d.Sum64()
}
