package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/verdict"
)

func TestDecideIsolation(t *testing.T) {
	refused := errors.New("flush refused: HTTP 501")
	tests := []struct {
		dialect  string
		flushErr error
		salt     bool
		want     int
		caches   string // prefix of the run's bench_caches
		withheld string // part of the withheld verdict ("" none)
	}{
		{dialect.VLLM, nil, true, isoFlush, "flushed", ""},
		{dialect.VLLM, refused, true, isoSalt, "salted", ""},
		{dialect.VLLM, refused, false, isoNone, "persisted", "VLLM_SERVER_DEV_MODE=1"},
		{dialect.LlamaCpp, nil, true, isoSalt, "salted", ""},
		{dialect.LlamaCpp, nil, false, isoNone, "persisted", "--cache-ram 0"},
		{dialect.LlamaCpp, refused, true, isoSalt, "salted", ""},
		{dialect.OpenAI, refused, false, isoNone, "persisted", "--api completions"},
	}
	for _, tc := range tests {
		t.Run(tc.dialect, func(t *testing.T) {
			d, _ := dialect.Lookup(tc.dialect)
			iso := decideIsolation(d, tc.flushErr, tc.salt)
			if iso.how != tc.want || !strings.HasPrefix(iso.caches(), tc.caches) {
				t.Errorf("how %d caches %q, want %d and %s…", iso.how, iso.caches(), tc.want, tc.caches)
			}
			w := iso.withheld()
			if (tc.withheld == "") != (w == "") || !strings.Contains(w, tc.withheld) {
				t.Errorf("withheld %q, want it to hold %q", w, tc.withheld)
			}
		})
	}
}

func TestLiveVerdictNotes(t *testing.T) {
	d, _ := dialect.Lookup(dialect.OpenAI)
	tests := []struct {
		name     string
		lb       *liveBench
		withheld bool
		live     string
	}{
		{"nil plan", nil, false, ""},
		{"one probe", &liveBench{probes: []float64{2}}, false, ""},
		{"drift", &liveBench{probes: []float64{2, 2.5, 1.5, 2}}, false, "1.5 to 2.5 req/s, a spread of 50 %"},
		{"not isolated", &liveBench{isolation: decideIsolation(d, errors.New("no flush"), false)}, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &verdict.Verdict{Pick: "a", RunnerUp: "b", Rows: []verdict.VerdictRow{{Policy: "a"}, {Policy: "b"}}}
			tc.lb.annotate(v)
			if got := strings.HasPrefix(v.Headline(), "no verdict: "); got != tc.withheld {
				t.Errorf("headline %q: withheld %v, want %v", v.Headline(), got, tc.withheld)
			}
			if !strings.Contains(v.LiveNote, tc.live) || (tc.live == "") != (v.LiveNote == "") {
				t.Errorf("live note %q, want %q", v.LiveNote, tc.live)
			}
		})
	}
}
