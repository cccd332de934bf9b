package policies

import (
	"time"

	"github.com/tracebench/tracebench/traces"
)

// AnswerIndexer is implemented by Routers whose view of the caches can
// learn the answer a Backend generated. A server caches the blocks of
// what it generates too (vLLM does), so the next turn of a session, which
// carries the answer back, hits there; a view built from prompts alone
// sees that only one turn later (the gap GIE's issue #971 and llm-d's
// issue #1950 describe). The replay calls IndexAnswer when a turn
// finishes whose answer a later turn will carry, with req the turn's
// prompt extended by the answer, as the next turn's prompt begins.
type AnswerIndexer interface {
	IndexAnswer(now time.Duration, req *traces.Request, backend int)
}

// indexAnswersParam is the parameter of the Routers that can learn
// answers (prefix-cache, approx-prefix, cache-aware, hashtrie).
var indexAnswersParam = ParamSpec{Name: "index_answers", Kind: kBool, Default: traces.ParamBool(false),
	Doc: "true: also index each answer the backend generated, as the next turn will carry it back (the source routers index prompts only)"}
