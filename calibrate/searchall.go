package calibrate

import (
	"runtime"
	"sync"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// searched is one start's search: where it ended, its loss there, or
// the error that stopped it.
type searched struct {
	cfg  engine.Config
	loss float64
	err  error
}

// searchAll runs f's search from each start, as many at once as the
// machine has CPUs (each replay runs on one goroutine), and returns the
// outcomes in the starts' order, so the choice among them does not
// depend on which finished first. The searches share f's replay sets,
// which they only read.
func (f *replayFit) searchAll(starts []engine.Config, evals int) []searched {
	out := make([]searched, len(starts))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, start := range starts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			g := *f
			g.cfg = start
			next, err := g.search(evals)
			if err != nil {
				out[i] = searched{err: err}
				return
			}
			g.cfg = next
			out[i] = searched{cfg: next, loss: g.loss(g.x())}
		}()
	}
	wg.Wait()
	return out
}
