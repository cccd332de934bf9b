package metrics

import (
	"fmt"
	"math"
	"strings"

	"github.com/tracebench/tracebench/results"
)

// warnTokenRatio: the servers counted prompts more than 5 % longer or
// shorter than the trace says, so server token counts and the trace's
// are on different bases.
const warnTokenRatio = 0.05

// tokenBasis accumulates the token counts whose basis matters: the
// trace's intended prompt tokens (the basis of predicted hits and of
// fairness demand), the server's prompt tokens of responses that carried
// a cached count (the basis of the server hit rate), and both counts of
// the requests that have both (their ratio tells the tokenizers apart).
type tokenBasis struct {
	// intended is Σ the trace's prompt tokens (the server's when the
	// trace gives none).
	intended int64
	// knownPrompt and known are Σ prompt tokens and the count of
	// responses that carried a cached count.
	knownPrompt, known int64
	// ratioServer and ratioTrace are Σ server and trace prompt tokens of
	// requests with both.
	ratioServer, ratioTrace int64
	// unstreamed counts successful requests of two or more tokens that
	// came in one chunk (no TPOT can be measured; with --no-stream all
	// do, streamed ones when the server sent every token at once).
	unstreamed int64
}

// add folds in one successful Result.
func (t *tokenBasis) add(r *results.Result) {
	t.intended += int64(intendedPrompt(r))
	if !r.NoCached {
		t.knownPrompt += int64(r.PromptTokens)
		t.known++
	}
	if r.InputTokens > 0 && r.PromptTokens > 0 {
		t.ratioServer += int64(r.PromptTokens)
		t.ratioTrace += int64(r.InputTokens)
	}
	if r.Chunks < 2 && r.CompletionTokens >= 2 {
		t.unstreamed++
	}
}

// intendedPrompt is the trace's prompt length, else the server's count.
func intendedPrompt(r *results.Result) int {
	if r.InputTokens > 0 {
		return r.InputTokens
	}
	return r.PromptTokens
}

// ratio is Σ server prompt tokens / Σ trace prompt tokens (NaN: none).
func (t *tokenBasis) ratio() float64 {
	return Ratio(float64(t.ratioServer), float64(t.ratioTrace))
}

// tokenWarnings warns about figures that would otherwise mislead: backends
// whose responses carried no cached-token count (server hit rate n/a),
// failed scrapes, prompts counted on another tokenizer than the trace's,
// and TPOT that unstreamed responses cannot give.
func tokenWarnings(s *Summary) {
	for _, b := range s.Backends {
		if b.Requests > b.Errors && math.IsNaN(b.HitRate) && s.Header.Mode != results.ModeSim {
			s.addWarning(Warning{"no cached-token count in responses from " + b.URL,
				"its server hit rate is n/a (vLLM reports it with --enable-prompt-tokens-details, SGLang with --enable-cache-report, llama.cpp in timings.cache_n)", ""})
		}
	}
	if s.Stop != nil {
		if f, n := s.Stop.Extra[results.ExtraScrapeFailures], s.Stop.Extra[results.ExtraScrapes]; f > 0 {
			s.addWarning(Warning{"scrapes of /metrics failed", "scraped figures cover only the scrapes that succeeded",
				fmt.Sprintf("%.0f of %.0f", f, n)})
		}
		if u := s.Stop.Extra[results.ExtraScrapeUnknown]; u > 0 {
			s.addWarning(Warning{"/metrics pages without any of the dialect's names",
				"their scraped figures are n/a, not idle servers; check --dialect (the run's log names the namespaces found)",
				fmt.Sprintf("%.0f backends", u)})
		}
	}
	if r := s.PromptTokenRatio; !math.IsNaN(r) && math.Abs(r-1) > warnTokenRatio {
		s.addWarning(Warning{"the servers counted prompts on another basis than the trace",
			"predicted hits and fairness use the trace's tokens, the server hit rate the server's",
			fmt.Sprintf("%.3f server tokens per trace token", r)})
	}
	benchWarnings(s)
	if stream := s.Header.Config.Stream; stream != nil && !*stream && s.unstreamed > 0 {
		s.addWarning(Warning{"responses were not streamed", "TPOT and TBT cannot be measured and are n/a; a TPOT SLO was not checked",
			fmt.Sprintf("%d requests", s.unstreamed)})
	}
}

// warnOutputShare: a server whose generated-tokens counter grew by less
// than 80 % of the output tokens the client received from its address
// did not serve them all: another server answers there too.
const warnOutputShare = 0.8

// minSharedOutput is the output tokens below which the comparison is
// not made (counters scraped once a second miss the last few requests).
const minSharedOutput = 1000

// benchWarnings warns when a live bench left caches warm between
// policies, and when one address hides several servers.
func benchWarnings(s *Summary) {
	if c := s.Header.Config.BenchCaches; strings.HasPrefix(c, "persisted") {
		order := s.Header.Config.BenchOrder
		s.addWarning(Warning{"prefix caches persisted between policies",
			"this policy ran on servers warmed by the policies before it (" + strings.TrimPrefix(c, "persisted: ") + ")",
			"ran " + order})
	}
	for _, b := range s.Backends {
		if sh := b.ScrapedOutputShare; !math.IsNaN(sh) && b.OutputTokens >= minSharedOutput && sh < warnOutputShare {
			s.addWarning(Warning{"more than one server answers at " + b.URL,
				"its /metrics saw only part of the tokens the client received; per-server figures cover one of them",
				fmt.Sprintf("%.0f %% of %d output tokens", 100*sh, b.OutputTokens)})
		}
	}
}
