package predict

import (
	"fmt"

	"github.com/tracebench/tracebench/results"
)

// promptScale returns the server's prompt tokens per simulated prompt
// token: Σ prompt_tokens of the live run over Σ prompt_tokens of the
// simulated one, over the requests that succeeded in both (matched by
// id). It is 1 when no request pairs up or the live server did not
// report prompt tokens.
func promptScale(live, simulated string) (float64, error) {
	lv, err := promptTokensByID(live)
	if err != nil {
		return 0, err
	}
	sv, err := promptTokensByID(simulated)
	if err != nil {
		return 0, err
	}
	var l, s int
	for id, n := range lv {
		if m, ok := sv[id]; ok && n > 0 && m > 0 {
			l, s = l+n, s+m
		}
	}
	if l == 0 || s == 0 {
		return 1, nil
	}
	return float64(l) / float64(s), nil
}

// promptTokensByID reads the prompt tokens of the successful requests of
// a results file.
func promptTokensByID(path string) (map[string]int, error) {
	out := map[string]int{}
	err := results.EachResult(path, nil, func(r *results.Result) error {
		if r.OK() {
			out[r.ID] = r.PromptTokens
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("predict: %w", err)
	}
	return out, nil
}
