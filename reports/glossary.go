package reports

import "github.com/tracebench/tracebench/reports/html"

// GlossaryEntry defines one metric as the report uses it.
type GlossaryEntry struct {
	Metric     string
	Definition string
}

// Glossary returns the definition of every metric a report shows, in the
// order of docs/architecture.md, "Metrics". The markdown and HTML
// reports print it at the end.
func Glossary() []GlossaryEntry {
	return []GlossaryEntry{
		{"TTFT", "time to first token: first content-bearing chunk − intended arrival (the trace's arrival time, so client-side queueing and late sending count; coordinated-omission safe). A reasoning model's reasoning counts as content. Over successful requests."},
		{"TTFOT", "time to first output token: the first chunk of the answer, outside a reasoning model's reasoning (delta.reasoning_content or delta.reasoning, Responses API reasoning events, or with --reasoning-tags the text inside think tags) − intended arrival. Equal to TTFT for a request that did not reason; n/a for a request whose stream never left its reasoning (max_tokens reached while thinking). Over successful requests that received an output token."},
		{"reasoning tokens", "of a request: the output tokens it spent reasoning, from the usage's reasoning_tokens (completion_tokens_details, SGLang's usage.reasoning_tokens, the Responses API's output_tokens_details) when the server reports it, else the count of streamed reasoning chunks; part of its output tokens. Shown per run as the requests that reasoned, their mean reasoning tokens and the reasoning share of all output tokens."},
		{"server TTFT", "first content chunk − the moment the HTTP request was sent: the servers' share of TTFT."},
		{"TBT", "time between tokens: every gap between successive content chunks of a request, over all gaps of all successful requests (recorded per request at 2 significant digits). Tokens per chunk (output tokens / content chunks) is shown beside it: above 1, a gap spans several tokens."},
		{"TPOT", "time per output token of one request: (done − first token) / (output tokens − 1); requests with fewer than 2 output tokens have none."},
		{"E2E", "end to end: done − intended arrival."},
		{"queue wait", "released by the client-side Queue − intended arrival (0 for fcfs)."},
		{"schedule lag", "sent − released: how late the client itself sent; p50/p99/max, beside the requested and achieved arrival rates."},
		{"mock step lateness", "how late the bundled mock ended its engine steps: wall time after each step's deadline, over every step of every replica; p50/p99/max and the number of steps run during the run. Measured for runs against the in-process mock fleet (--mock N), started for the run, and for --scrape runs against a tracebench mock target, whose scraped quantiles cover the mock's lifetime (every step since it started) and are marked (lifetime); n/a for other targets and --sim. A p99 that is a sizeable part of TBT means the machine, not the mock's latency model, shaped the timings."},
		{"host CPU steal", "the share of the machine's CPU time (every CPU, from /proc/stat) the hypervisor gave to other guests while this one had work, over a real-time run, in percent; shown beside the busy share (time running anything: this tool, a mock fleet, other load). Linux only; n/a for --sim. Above 2 % the host, not the policy or the client, may have shaped schedule lag, TTFT and TBT."},
		{"burst gap share", "the share of TBT gaps under 0.1 ms: chunks of one stream that reached the client together. No decode step is that short, so above 25 % the client fell behind reading its streams (or the servers send several chunks at once, as with multi-step scheduling) and TBT percentiles describe the bursts; TPOT and E2E are unaffected."},
		{"SLA met", "a successful request whose TTFT ≤ --slo-ttft, TPOT ≤ --slo-tpot and, when set, TTFOT ≤ --slo-ttfot (a request with no output token misses it) and E2E ≤ --slo-e2e (per-user bounds from --slo-file override these)."},
		{"SLA attainment", "SLA-met requests / all requests in the window (failed requests count as missed); also per user."},
		{"goodput", "SLA-met requests per second of the measured window (DistServe, Zhong et al. 2024)."},
		{"throughput", "successful requests, their prompt tokens and their output tokens per second of the measured window."},
		{"measured window", "from the --warmup cut (requests arriving earlier are left out) to the last completion."},
		{"hit rate (server)", "Σ cached prompt tokens / Σ prompt_tokens over the responses that reported a cached count (usage.prompt_tokens_details.cached_tokens; llama.cpp: timings.cache_n), n/a when none did; the scraped figure is Δ prefix hits / Δ prefix queries from the dialect's /metrics counters (vLLM: vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total; SGLang: sglang:cached_tokens_total / sglang:prompt_tokens_total; llama.cpp has none) when --scrape is on."},
		{"hit rate (predicted)", "Σ prefix tokens the Router expected to hit for its picks / Σ the trace's prompt tokens (both in the trace's tokens, so never above 100 %): the Router's own model of the caches, shown beside the server figure. Every Router reports one: prefix-cache, approx-prefix and cache-aware from the view they decide with, the others (load-only ones such as round-robin, vtc-basic, chwbl, session-affinity) from a per-server LRU of the 16-token blocks sent there that never affects their picks. n/a when no pick predicted any hit. When the servers count prompts differently (a warning gives the measured server tokens per trace token), compare it with the server figure as a share, not in tokens."},
		{"service", "of a user: w_in·input tokens + w_out·output tokens (w_in 1, w_out 2, as in VTC); demand counts the trace's intended lengths, service what was delivered (its prompt counted in the trace's tokens too, so a server tokenizer that splits text finer does not inflate it)."},
		{"Jain's index", "(Σx)² / (n·Σx²) over users' x = service received so far / their max-min fair share of the service given so far (a user that asked for less than an equal split is owed all it asked, the others share the rest equally), taken every time bucket of the run and averaged: 1 when every user always had its fair share, toward 1/n when one user was served while the others waited. n/a with fewer than two users. (At the end of a complete run every user got what it asked, so an end-of-run index would always read 1.)"},
		{"service difference", "VTC's measure (Sheng et al. 2024, as in its artifact): in each fairness window (60 s by default; the run configuration gives it), max over users of min(best-served user's service − the user's, the user's demand − its service), in weighted tokens per second; max and mean over windows. 0 means no user that wanted more got less than another."},
		{"load balance", "coefficient of variation (stddev / mean) of requests and of tokens per Backend: 0 is perfectly even."},
		{"errors", "failed requests by class: connect, timeout, http-4xx, unknown-model (404: the model or LoRA adapter is not served), http-5xx, stream-broken, stream-error, bad-payload, rejected (client-side Queue), canceled (run stopped)."},
	}
}

// glossaryItems is the glossary as the HTML report lists it.
func glossaryItems() []html.Item {
	g := Glossary()
	items := make([]html.Item, len(g))
	for i, e := range g {
		items[i] = html.Item{Label: e.Metric, Value: e.Definition}
	}
	return items
}
