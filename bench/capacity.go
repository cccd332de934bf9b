package bench

import (
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/tracebench/tracebench/policies"
)

// warnCapacity warns, once per message, when a Queue that orders only
// the Requests it holds back (policies.NeedCapacity: vtc, lcf) runs
// without --backend-capacity or --backend-token-budget: with unlimited
// room it releases every Request on arrival and acts as fcfs, so it
// would look no fairer than fcfs. No capacity is picked for the user:
// the right one is the servers' concurrent-request limit, which a KV
// cache can bind well below max_num_seqs; the warning names the flags
// that give it (and the in-process engines' max_num_seqs, the upper
// end).
func (rs *Spec) warnCapacity(queue string) {
	if rs.Policy.Capacity > 0 || rs.Policy.TokenBudget > 0 {
		return
	}
	spec, err := policies.Lookup(policies.KindQueue, queue)
	if err != nil || !slices.Contains(spec.Needs, policies.NeedCapacity) {
		return
	}
	limit := "the servers' concurrent-request limit (vLLM --max-num-seqs, 256 by default; llama.cpp --parallel)"
	if rs.Fleet != nil {
		limit = fmt.Sprintf("the requests an engine runs at once (at most its max_num_seqs, %d; fewer when its KV cache fills first)", rs.Fleet.MaxNumSeqs)
	}
	warnOnce(rs.ErrOut, fmt.Sprintf("tracebench: warning: Spec.Policy.Queue %s without Spec.Policy.Capacity or Spec.Policy.TokenBudget "+
		"holds no request back and acts as fcfs; set Spec.Policy.Capacity to %s", queue, limit))
}

// warned records the messages warnOnce wrote, per writer.
var warned sync.Map

// warnOnce writes msg and a newline to w unless it wrote it there
// before (a sweep runs many steps with the same flags).
func warnOnce(w io.Writer, msg string) {
	if w == nil {
		return
	}
	if _, seen := warned.LoadOrStore(struct {
		w   io.Writer
		msg string
	}{w, msg}, true); !seen {
		fmt.Fprintln(w, msg)
	}
}
