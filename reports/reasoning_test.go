package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/verdict"
)

// reasoningRun is four successful Results of a reasoning model and one
// failure: two reasoned and answered, one did not reason, one never left
// its reasoning.
func reasoningRun() (results.Header, []*results.Result) {
	h := results.Header{Policy: "think", Router: "round-robin", Queue: "fcfs", Backends: []string{"b0"}}
	rs := []*results.Result{
		{ID: "a", Intended: 0, Sent: ms1, FirstToken: 100 * ms1, FirstOutput: 1100 * ms1, Done: 1500 * ms1,
			Chunks: 30, CompletionTokens: 30, ReasoningTokens: 20, Status: 200},
		{ID: "b", Intended: 1000 * ms1, Sent: 1001 * ms1, FirstToken: 1200 * ms1, FirstOutput: 4200 * ms1,
			Done: 4500 * ms1, Chunks: 50, CompletionTokens: 50, ReasoningTokens: 40, Status: 200},
		{ID: "c", Intended: 2000 * ms1, Sent: 2001 * ms1, FirstToken: 2300 * ms1, FirstOutput: 2300 * ms1,
			Done: 2600 * ms1, Chunks: 10, CompletionTokens: 10, Status: 200},
		{ID: "d", Intended: 3000 * ms1, Sent: 3001 * ms1, FirstToken: 3100 * ms1, Done: 3900 * ms1,
			Chunks: 10, CompletionTokens: 10, ReasoningTokens: 10, Status: 200},
		{ID: "e", Intended: 4000 * ms1, Sent: 4001 * ms1, Done: 4010 * ms1, Status: 503, ErrClass: results.ErrHTTP5xx},
	}
	return h, rs
}

func summarizeReasoning(o metrics.Options) *metrics.Summary {
	h, rs := reasoningRun()
	a := metrics.NewAccumulator(h, o)
	for _, r := range rs {
		a.Add(r)
	}
	return a.Finish(&results.Stop{Reason: "done", Elapsed: 5 * time.Second})
}

func TestReasoningSummary(t *testing.T) {
	s := summarizeReasoning(metrics.DefaultOptions())
	r := s.Reasoning
	if r.Requests != 3 || r.Tokens != 70 || r.NoOutput != 1 || r.TTFOTNote != "" {
		t.Errorf("reasoning %+v: want 3 requests, 70 tokens, 1 without output, no note", r)
	}
	if math.Abs(r.MeanTokens-70.0/3) > 1e-9 || math.Abs(r.Share-70.0/100) > 1e-9 {
		t.Errorf("mean %v share %v: want 23.3 and 0.7", r.MeanTokens, r.Share)
	}
	// TTFOT over a, b, c: 1100, 3200, 300 ms; TTFT over all four.
	if s.TTFOT.Count != 3 || math.Abs(s.TTFOT.Max-3200) > 4 || math.Abs(s.TTFOT.P50-1100) > 2 {
		t.Errorf("TTFOT %+v: want 3 values, p50 1100 ms, max 3200 ms", s.TTFOT)
	}
	if s.TTFT.Count != 4 || s.TTFT.Max > 301 {
		t.Errorf("TTFT %+v: want 4 values up to 300 ms", s.TTFT)
	}
}

// TestTTFOTSLO: a TTFOT bound makes the requests that answered late, and
// the one that never answered, miss the SLA; the verdict's attainment
// moves with it.
func TestTTFOTSLO(t *testing.T) {
	tests := []struct {
		name string
		slo  metrics.SLO
		met  int64
	}{
		{"no TTFOT bound", metrics.SLO{TTFT: time.Second}, 4},
		{"TTFOT 2 s", metrics.SLO{TTFT: time.Second, TTFOT: 2 * time.Second}, 2},
		{"TTFOT 500 ms", metrics.SLO{TTFOT: 500 * time.Millisecond}, 1},
		{"per-user bound", metrics.SLO{PerUser: map[string]metrics.SLO{"": {TTFOT: 2 * time.Second}}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := metrics.DefaultOptions()
			o.SLO = tc.slo
			s := summarizeReasoning(o)
			if s.SLA.Met != tc.met {
				t.Fatalf("SLA met %d, want %d", s.SLA.Met, tc.met)
			}
			var m verdict.Misses
			_, rs := reasoningRun()
			for _, r := range rs {
				m.Add(o, r)
			}
			if want := 4 - tc.met; tc.slo.TTFT == 0 && m.TTFOT+m.TTFT != want {
				t.Fatalf("misses %+v: want %d TTFOT misses", m, want)
			}
		})
	}
}

// TestTTFOTNotApplicable: TTFOT is n/a with the reason, in the markdown,
// the HTML and the JSON, when no stream left its reasoning and when the
// results predate the figure.
func TestTTFOTNotApplicable(t *testing.T) {
	stuck := &results.Result{ID: "x", FirstToken: 50 * ms1, Done: 900 * ms1, Chunks: 9, CompletionTokens: 9,
		ReasoningTokens: 9, Status: 200}
	old := &results.Result{ID: "y", FirstToken: 50 * ms1, Done: 900 * ms1, Chunks: 9, CompletionTokens: 9, Status: 200}
	tests := []struct {
		name string
		r    *results.Result
		note string
	}{
		{"never left reasoning", stuck, "no stream left its reasoning"},
		{"predates the figure", old, "does not record first output tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := metrics.DefaultOptions()
			o.SLO.TTFOT = time.Second
			a := metrics.NewAccumulator(results.Header{Policy: "p", Router: "p"}, o)
			a.Add(tc.r)
			s := a.Finish(&results.Stop{Reason: "done", Elapsed: time.Second})
			if !strings.Contains(s.Reasoning.TTFOTNote, tc.note) || s.TTFOT.Count != 0 || s.SLA.Met != 0 {
				t.Fatalf("note %q, TTFOT %+v, met %d: want the note %q, no TTFOT, no SLA met",
					s.Reasoning.TTFOTNote, s.TTFOT, s.SLA.Met, tc.note)
			}
			var md bytes.Buffer
			writeReasoning(&md, []*metrics.Summary{s})
			if !strings.Contains(md.String(), "TTFOT of p is n/a: ") || !strings.Contains(md.String(), tc.note) ||
				!strings.Contains(md.String(), "| n/a |") {
				t.Fatalf("markdown lacks the n/a and its reason:\n%s", md.String())
			}
			var js bytes.Buffer
			if err := WriteJSON(&js, []*metrics.Summary{s}); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Runs []struct {
					TTFOT struct {
						P50 *float64 `json:"p50_ms"`
					} `json:"ttfot"`
					Reasoning struct {
						Note string `json:"ttfot_note"`
					} `json:"reasoning"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if got := doc.Runs[0]; !strings.Contains(got.Reasoning.Note, tc.note) {
				t.Fatalf("JSON reasoning note %q", got.Reasoning.Note)
			}
		})
	}
}

// TestReasoningInEveryReport: the reasoning figures reach the markdown,
// CSV, JSON and HTML reports, and a run without reasoning or a TTFOT
// bound shows no reasoning section.
func TestReasoningInEveryReport(t *testing.T) {
	dir := t.TempDir()
	s := summarizeReasoning(metrics.DefaultOptions())
	if err := WriteDir(dir, []*metrics.Summary{s}, RenderOptions{NoPlots: true}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	page, _ := os.ReadFile(filepath.Join(dir, html.File))
	for name, doc := range map[string]string{"report.md": string(md), "report.html": string(page)} {
		for _, want := range []string{"Reasoning", "TTFOT p50 ms", "never left reasoning", "70.0 %"} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, []*metrics.Summary{s}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]string{}
	for i, h := range rows[0] {
		col[h] = rows[1][i]
	}
	if col["reasoning_requests"] != "3" || col["reasoning_tokens"] != "70" || col["reasoning_no_output"] != "1" ||
		col["reasoning_share"] != "0.7" || col["ttfot_max_ms"] == "" {
		t.Errorf("CSV reasoning columns %v", col)
	}
	plain := finishHand(metrics.DefaultOptions(), nil)
	var md2 bytes.Buffer
	writeReasoning(&md2, []*metrics.Summary{plain})
	if md2.Len() != 0 {
		t.Errorf("a run without reasoning shows a reasoning section:\n%s", md2.String())
	}
	if _, ok := reasoningSection([]*metrics.Summary{plain}); ok {
		t.Errorf("a run without reasoning gets an HTML reasoning section")
	}
}

func TestRequestCSVReasoning(t *testing.T) {
	var b bytes.Buffer
	c, err := NewRequestCSV(&b, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, rs := reasoningRun()
	for _, r := range rs[:4] {
		if err := c.Write("think", r); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	idx := func(name string) int {
		for i, h := range rows[0] {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	ttfot, rt, pd := idx("ttfot_ms"), idx("reasoning_tokens"), idx("prefill_backend")
	want := [][2]string{{"1100", "20"}, {"3200", "40"}, {"300", "0"}, {"", "10"}}
	for i, w := range want {
		if got := [2]string{rows[i+1][ttfot], rows[i+1][rt]}; got != w {
			t.Errorf("row %d: ttfot_ms, reasoning_tokens = %v, want %v", i, got, w)
		}
		if rows[i+1][pd] != "" {
			t.Errorf("row %d: prefill_backend %q, want empty", i, rows[i+1][pd])
		}
	}
}

func TestSLOFileTTFOT(t *testing.T) {
	per, err := metrics.ParseSLOFile("s.yaml", []byte("users:\n  r: {ttfot: 4s, ttft: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if per["r"].TTFOT != 4*time.Second {
		t.Fatalf("ttfot %v, want 4s", per["r"].TTFOT)
	}
	if _, err := metrics.ParseSLOFile("s.yaml", []byte("users:\n  r: {ttfot: -1s}\n")); err == nil ||
		!strings.Contains(err.Error(), `user "r": field ttfot: negative duration`) {
		t.Fatalf("negative ttfot: error %v", err)
	}
	got := metrics.SLO{TTFOT: time.Second, PerUser: map[string]metrics.SLO{"r": {TTFOT: 4 * time.Second}}}
	if got.For("r").TTFOT != 4*time.Second || got.For("s").TTFOT != time.Second {
		t.Fatalf("For: %v %v", got.For("r"), got.For("s"))
	}
}

// TestVerdictUsesTTFOT: of two policies, "eager" starts every stream
// early but answers late (long reasoning queued behind others) and
// "steady" starts later but answers sooner. Under a TTFT bound alone
// eager wins; with a TTFOT bound the verdict picks steady.
func TestVerdictUsesTTFOT(t *testing.T) {
	run := func(name string, o metrics.Options, ttft, ttfot time.Duration) *metrics.Summary {
		a := metrics.NewAccumulator(results.Header{Policy: name, Router: name, Trace: "w", Mode: "sim"}, o)
		for i := range 20 {
			at := time.Duration(i) * time.Second
			a.Add(&results.Result{ID: name, Intended: at, Sent: at, FirstToken: at + ttft, FirstOutput: at + ttfot,
				Done: at + ttfot + 100*ms1, Chunks: 20, CompletionTokens: 20, ReasoningTokens: 10, Status: 200})
		}
		return a.Finish(&results.Stop{Reason: "done", Elapsed: 21 * time.Second})
	}
	for _, tc := range []struct {
		name string
		slo  metrics.SLO
		pick string
	}{
		{"TTFT bound", metrics.SLO{TTFT: 300 * ms1}, "eager"},
		{"TTFT and TTFOT bounds", metrics.SLO{TTFT: 600 * ms1, TTFOT: 2 * time.Second}, "steady"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := metrics.DefaultOptions()
			o.SLO = tc.slo
			runs := map[string][]*metrics.Summary{
				"eager":  {run("eager", o, 100*ms1, 3*time.Second)},
				"steady": {run("steady", o, 500*ms1, 1500*ms1)},
			}
			v := verdict.DecideVerdict([]string{"eager", "steady"}, runs)
			if v == nil || v.Pick != tc.pick {
				t.Fatalf("verdict %+v: want %s picked", v, tc.pick)
			}
			if tc.slo.TTFOT > 0 && !strings.Contains(v.SLO, "TTFOT ≤ 2s") {
				t.Errorf("verdict SLO %q does not state the TTFOT bound", v.SLO)
			}
		})
	}
}
