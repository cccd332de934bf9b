package replay

import "github.com/tracebench/tracebench/results"

// Deliver hands on a finished Result: it counts r as done (and as an
// error unless OK) in c, adds it to rates, writes it to Results (a
// write failure sticks in the Writer and comes back from its Close) and
// calls OnResult. It reports whether OnResult was called.
func (o *Common) Deliver(r *results.Result, c *Counters, rates *RateMeter) bool {
	rates.Add(r)
	c.Done.Add(1)
	if !r.OK() {
		c.Errors.Add(1)
	}
	if o.Results != nil {
		_ = o.Results.WriteResult(r)
	}
	if o.OnResult == nil {
		return false
	}
	o.OnResult(r)
	return true
}
