package policies

import (
	"strings"
	"testing"

	"github.com/tracebench/tracebench/traces"
)

// TestIndexAnswers: with index_answers, a router that saw a turn's prompt
// and then its answer predicts the next turn's hit over both; without, it
// predicts the prompt only (the source routers' view).
func TestIndexAnswers(t *testing.T) {
	q0 := strings.Repeat("question zero words ", 40)           // 800 characters
	ans := strings.Repeat(" answer text from the backend", 30) // 870 characters
	next := q0 + "\n" + ans + "\nquestion one"
	for _, name := range []string{"prefix-cache", "approx-prefix", "cache-aware", "hashtrie"} {
		for _, on := range []bool{false, true} {
			p := Params{}
			if on {
				p["index_answers"] = traces.ParamBool(true)
			}
			r := mustRouter(t, name, p, 1)
			bs := fleet(0, 0)
			if _, err := r.Pick(textReq("t0", q0, 200), only(bs, 1, 0)); err != nil {
				t.Fatal(err)
			}
			r.(AnswerIndexer).IndexAnswer(0, textReq("t0+", q0+"\n"+ans, 400), 1)
			ch, err := r.Pick(textReq("t1", next, 420), only(bs, 1, 1))
			if err != nil {
				t.Fatal(err)
			}
			// The prompt alone is under half of the next prompt.
			half := 420 / 2
			if got := ch.PredictedHitTokens > half; got != on {
				t.Errorf("%s index_answers=%v: predicted hit %d tokens of 420; want more than %d: %v",
					name, on, ch.PredictedHitTokens, half, on)
			}
		}
	}
}
