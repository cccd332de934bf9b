package calibrate

import (
	"math"
	"testing"
)

// TestSaveColumns: a request whose slot choice saved, alone on its
// server, puts one save and the tokens it copied in its TTFT row, not in
// its server prompt row (the server times its prompt after the save);
// beside another request in flight its TTFT row has no save term; the
// save is in the decode row of a request it stalled, per step; a request
// that saved nothing puts none.
func TestSaveColumns(t *testing.T) {
	tl := &timeline{reqs: []request{
		{id: "a", sent: 0, first: 0.1, done: 1.1, prompt: 10, computed: 10, out: 101},
		{id: "b", sent: 0.5, first: 0.6, done: 0.7, prompt: 10, computed: 10, out: 2, saved: 300, promptSecs: 0.05},
	}}
	lone := &timeline{reqs: tl.reqs[1:]}
	for _, x := range []*timeline{tl, lone} {
		for _, q := range x.reqs {
			x.maxSpan, x.maxWait = max(x.maxSpan, q.done-q.first), max(x.maxWait, q.first-q.sent)
		}
	}
	for _, tc := range []struct {
		name            string
		row             func() (row, bool)
		saves, savedTok float64
	}{
		{"ttft of a lone saver", func() (row, bool) { return lone.ttftRow(0, 2048, 4) }, 1, 300},
		{"ttft of a saver beside a decoder", func() (row, bool) { return tl.ttftRow(1, 2048, 4) }, 0, 0},
		{"server prompt of a lone saver", func() (row, bool) {
			r, _ := lone.ttftRow(0, 2048, 4)
			return serverRow(r, lone.reqs[0])
		}, 0, 0},
		{"ttft of a request that kept its slot", func() (row, bool) { return tl.ttftRow(0, 2048, 4) }, 0, 0},
		// a's 100 steps over 1 s saw b's save: per step, 1/100 of it.
		{"decode beside the save", func() (row, bool) { return tl.decodeRow(0, stepModel{}) }, 0.01, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := tc.row()
			if !ok {
				t.Fatal("no row")
			}
			if math.Abs(r.x[colSave]-tc.saves) > 1e-9 || math.Abs(r.x[colSaveTok]-tc.savedTok) > 1e-9 {
				t.Fatalf("saves %v of %v tokens, want %v of %v", r.x[colSave], r.x[colSaveTok], tc.saves, tc.savedTok)
			}
		})
	}
}
