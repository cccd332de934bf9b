package bench

import (
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/traces"
)

// DefaultWorkload is the workload the command line runs when no flag
// changes it: the mixed generator, seed 1, the trace's own times
// (TimeScale 1), Poisson arrivals when a Rate is set (CV 1), format
// detected, and ShareGPT text counted in whitespace tokens with the
// traces package's think time and session gap.
func DefaultWorkload() Workload {
	return Workload{Format: "auto", Workload: "mixed", Seed: 1, TimeScale: 1, Arrival: "poisson", CV: 1,
		ShareGPT: ShareGPT{Tokenizer: DefaultShareGPTTokenizer, Think: traces.DefaultThinkTime, Gap: traces.DefaultSessionGap}}
}

// DefaultPolicy is the command line's policy: round-robin with the fcfs
// queue, no filter and no capacity limits.
func DefaultPolicy() Policy {
	return Policy{Router: "round-robin", Queue: "fcfs"}
}

// DefaultClient is the command line's client: streamed completions, a
// 60 s first-byte and idle timeout, 10 s of grace after an interrupt, and
// a 1 s scrape period when scraping is on, the dialect detected.
func DefaultClient() Client {
	return Client{API: "completions", Dialect: dialect.Auto, ScrapeInt: time.Second, Grace: 10 * time.Second, Timeout: 60 * time.Second}
}
