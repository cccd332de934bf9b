package bench

import "sync"

// Each calls fn(i) for every i in [0, n), jobs at a time (jobs ≥ 1),
// and returns FirstError of their errors in i's order, whatever order
// they finish in.
func Each(n, jobs int, fn func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return FirstError(errs)
}
