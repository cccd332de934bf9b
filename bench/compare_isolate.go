package bench

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/verdict"
)

// How a live bench keeps every run from meeting the prefixes an earlier
// run left in the servers' caches, best first:
//
//   - isoFlush: the dialect's flush empties every cache before each run
//     (vLLM's /reset_prefix_cache, SGLang's /flush_cache).
//   - isoSalt: every prompt of a run starts with client.SaltTokens token
//     ids of the run's own salt, so prompts share prefixes within a run
//     and with nothing else; usage counts leave the salt out. Used when
//     no flush is allowed, or when the flush leaves a cache (llama.cpp's
//     slot erase keeps the host prompt cache of --cache-ram); a flush
//     still goes before each run where it is allowed, so every run also
//     starts on empty slots.
//   - isoNone: neither (prompts go as text or chat, whose salt length
//     the client cannot fix): the caches persist and the verdict is
//     withheld, with one line saying how to start the server.
const (
	isoFlush = iota
	isoSalt
	isoNone
)

// isolation is the plan's choice among isoFlush, isoSalt and isoNone.
type isolation struct {
	how int
	// flush is whether every target accepted a flush at planning time.
	flush bool
	// why says why the flush is missing or partial ("" when complete).
	why string
	// hint says how to start the servers for a complete flush.
	hint string
	// nonce makes this bench's salts differ from every earlier bench's.
	nonce string
}

// decideIsolation picks the isolation from the dialect, the planning
// flush's error and whether prompts can be salted.
func decideIsolation(d *dialect.Dialect, flushErr error, salt bool) isolation {
	iso := isolation{flush: flushErr == nil, hint: d.FlushHint(), nonce: strconv.FormatInt(time.Now().UnixNano(), 36)}
	switch {
	case flushErr != nil:
		iso.why = flushErr.Error()
	case d.FlushLeaves() != "":
		iso.why = "the flush leaves " + d.FlushLeaves()
	}
	switch {
	case iso.why == "":
		iso.how = isoFlush
	case salt:
		iso.how = isoSalt
	default:
		iso.how = isoNone
	}
	return iso
}

// saltable reports whether the Runs' prompts can be salted: token-id
// prompts to a completions endpoint (see client.Client.Salted).
func saltable(cf *Client, d *dialect.Dialect) bool {
	return cf.API != client.APIChat && cf.API != client.APIResponses && d.TokenPrompts()
}

// caches is a run's cache state as its results header states it
// (config.bench_caches).
func (iso isolation) caches() string {
	switch iso.how {
	case isoFlush:
		return "flushed: complete"
	case isoSalt:
		s := fmt.Sprintf("salted: every prompt starts with %d tokens of its run's own salt", client.SaltTokens)
		if iso.flush {
			s += ", and slots were flushed"
		}
		return s + " (" + iso.why + ")"
	}
	return "persisted: " + iso.why
}

// line is the plan's one-line note.
func (iso isolation) line() string {
	switch iso.how {
	case isoFlush:
		return "prefix caches are flushed before every run"
	case isoSalt:
		return fmt.Sprintf("every run's prompts start with %d tokens of its own salt, so no run meets "+
			"another's cached prefixes (%s)", client.SaltTokens, iso.why)
	}
	return "prefix caches persist between runs and prompts cannot be salted: no verdict; " + iso.withheld()
}

// withheld is the reason a verdict is withheld ("" when it is not).
func (iso isolation) withheld() string {
	if iso.how != isoNone {
		return ""
	}
	s := "caches persisted between policies (" + iso.why + ")"
	if iso.hint != "" {
		s += "; " + iso.hint
	}
	return s + ", or send token-id prompts (--api completions) so runs can be salted"
}

// drift says how much the speed probe moved over the runs ("" with
// fewer than two probes): the spread of the rates as a share of their
// median. Differences between policies smaller than that may be the
// machine's, not the policies'.
func (lb *liveBench) drift() string {
	if lb == nil || len(lb.probes) < 2 {
		return ""
	}
	p := slices.Clone(lb.probes)
	slices.Sort(p)
	med := p[len(p)/2]
	if len(p)%2 == 0 {
		med = (p[len(p)/2-1] + p[len(p)/2]) / 2
	}
	if med <= 0 {
		return ""
	}
	return fmt.Sprintf("conditions moved: the speed probe before each of %d runs served %.3g to %.3g req/s, "+
		"a spread of %.0f %% of the median", len(p), p[0], p[len(p)-1], 100*(p[len(p)-1]-p[0])/med)
}

// close releases the probes' client.
func (lb *liveBench) close() {
	if lb != nil && lb.client != nil {
		lb.client.Close()
	}
}

// annotate withholds v when the runs were not isolated and states the
// drift of the conditions between runs (nothing for a nil plan or v).
func (lb *liveBench) annotate(v *verdict.Verdict) {
	if lb == nil || v == nil {
		return
	}
	v.Withheld, v.LiveNote = lb.withheld(), lb.drift()
}
