//go:build !race

package cli

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

// experimentTables makes TestExperimentTables rerun the experiments of
// docs/experiments.md and rewrite its generated tables.
var experimentTables = flag.Bool("experiment-tables", false, "rerun the experiments and rewrite the tables of docs/experiments.md")

// experimentTable, when set, limits -experiment-tables to the tables
// whose names match this regular expression.
var experimentTable = flag.String("experiment-table", "", "with -experiment-tables: only the tables matching this regular expression")

// experimentsDoc is docs/experiments.md relative to this package.
const experimentsDoc = "../../../docs/experiments.md"

// TestExperimentTables regenerates every table of docs/experiments.md
// that the simulator measures (deterministic, virtual time) between its
// "<!-- generated: NAME -->" and "<!-- end generated -->" markers. It
// runs only with -experiment-tables (about 6 minutes on 2 cores;
// -experiment-table REGEXP picks tables by name):
//
//	go test ./cmd/tracebench/cli -run '^TestExperimentTables$' -experiment-tables -timeout 60m
func TestExperimentTables(t *testing.T) {
	if !*experimentTables {
		t.Skip("rerun with -experiment-tables to regenerate docs/experiments.md")
	}
	doc, err := os.ReadFile(experimentsDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	only, err := regexp.Compile(*experimentTable)
	if err != nil {
		t.Fatalf("-experiment-table: %v", err)
	}
	for _, g := range []struct {
		name string
		gen  func(*testing.T) string
	}{
		{"mooncake-routers", tableMooncakeRouters},
		{"mooncake-loads", tableMooncakeLoads},
		{"mooncake-params", tableMooncakeParams},
		{"multibin-integer", tableMultiBinInteger},
		{"multibin-continuous", tableMultiBinContinuous},
		{"vtc-arena", tableVTCArena},
		{"vtc-two-users", tableVTCTwoUsers},
		{"eviction-mooncake", tableEvictionMooncake},
		{"prodstack-mooncake", tableProdStackMooncake},
		{"vtc-variants", tableVTCVariants},
		{"lora-affinity", tableLoRAAffinity},
		{"lora-two-slots", tableLoRATwoSlots},
		{"kv-mooncake", tableKVMooncake},
		{"kv-lag", tableKVLag},
	} {
		if !only.MatchString(g.name) {
			continue
		}
		start := time.Now()
		if text, err = replaceGenerated(text, g.name, g.gen(t)); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v", g.name, time.Since(start).Round(time.Second))
		if err := os.WriteFile(experimentsDoc, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// replaceGenerated puts table between the markers named name.
func replaceGenerated(doc, name, table string) (string, error) {
	re := regexp.MustCompile(`(?s)(<!-- generated: ` + regexp.QuoteMeta(name) + ` -->\n).*?(<!-- end generated -->)`)
	if !re.MatchString(doc) {
		return "", fmt.Errorf("docs/experiments.md has no generated section %q", name)
	}
	return re.ReplaceAllLiteralString(doc, "<!-- generated: "+name+" -->\n"+table+"<!-- end generated -->"), nil
}

// mooncakeRun replays the Mooncake trace on 4 long-context engines.
func mooncakeRun(t *testing.T, args ...string) *metrics.Summary {
	trace := experimentTrace(t, "mooncake/conversation_trace.jsonl")
	_, s := simReplay(t, append([]string{"replay", "--trace", trace, "--sim", "4", "--mock-profile", "long-context", "--seed", "1"}, args...)...)
	return s
}

// allRouters are the routers of experiment 1, in the table's order.
var allRouters = []string{"random", "round-robin", "least-request", "power-of-two", "least-kv-cache", "session-affinity",
	"vtc-basic", "chwbl", "approx-prefix", "prefix-cache", "cache-aware"}

func tableMooncakeRouters(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| router | hit rate (server) | hit rate (predicted) | TTFT p50 ms | TTFT p99 ms | requests per backend | CV of requests |\n|---|---:|---:|---:|---:|---|---:|\n")
	for _, p := range allRouters {
		s := mooncakeRun(t, "--time-scale", "2", "--policy", p)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %.0f | %.0f | %s | %s |\n", p, pct(s.HitRate.Server), pct(s.HitRate.Predicted),
			s.TTFT.P50, s.TTFT.P99, perBackend(s), cv(s.Balance.CVRequests))
	}
	return b.String()
}

func tableMooncakeLoads(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| router | ts 1.5: hit | TTFT p50 | TTFT p99 | ts 3: hit | TTFT p50 | TTFT p99 |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range []string{"random", "round-robin", "least-request", "power-of-two", "least-kv-cache", "chwbl",
		"approx-prefix", "prefix-cache", "cache-aware"} {
		fmt.Fprintf(&b, "| `%s` |", p)
		for _, ts := range []string{"1.5", "3"} {
			s := mooncakeRun(t, "--time-scale", ts, "--policy", p)
			fmt.Fprintf(&b, " %s | %.0f | %.0f |", pct(s.HitRate.Server), s.TTFT.P50, s.TTFT.P99)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func tableMooncakeParams(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| router and parameter | hit (server) | hit (predicted) | TTFT p50 | requests per backend |\n|---|---:|---:|---:|---|\n")
	for _, r := range []struct{ policy, params, note string }{
		{"chwbl", "prefix_chars=4096", " (key = 1,024 tokens)"},
		{"prefix-cache", "block_size=2048", " (512-token blocks, the trace's)"},
		{"cache-aware", "max_tree_chars=4194304", " (tree = 1M tokens, the KV)"},
		{"approx-prefix", "chunk_chars=2048 capacity_blocks=2048", ""},
	} {
		args := []string{"--time-scale", "2", "--policy", r.policy}
		for _, kv := range strings.Fields(r.params) {
			args = append(args, "--router-param", kv)
		}
		s := mooncakeRun(t, args...)
		fmt.Fprintf(&b, "| `%s` `%s`%s | %s | %s | %.0f | %s |\n", r.policy, r.params, r.note, pct(s.HitRate.Server),
			pct(s.HitRate.Predicted), s.TTFT.P50, perBackend(s))
	}
	return b.String()
}

// multiBinRun is one saturated multi-bin run of experiment 2.
func multiBinRun(t *testing.T, preset string, lo, hi, n int, bins string) float64 {
	_, s := simReplay(t, "replay", "--workload", "uniform-lengths", "-p", "input_min=1", "-p", "input_max=1",
		"-p", "output_min="+strconv.Itoa(lo), "-p", "output_max="+strconv.Itoa(hi), "-p", "requests="+strconv.Itoa(n),
		"--rate", "100000", "--arrival", "constant", "--sim", "2", "--mock-profile", preset, "--policy", "least-request",
		"--queue", "multi-bin", "--queue-param", bins, "--queue-param", "b_min=8", "--queue-param", "b_max=8", "--backend-capacity", "8")
	return s.Throughput.Requests
}

// multiBinRow is a bins setting of experiment 2: its label, the
// multi-bin parameter, the cuts of the closed form and the bin count;
// auto rows let Algorithm 6 cut (the label names its cuts).
type multiBinRow struct {
	label, bins string
	cuts        []int
	k           int
	auto        bool
}

func tableMultiBinInteger(t *testing.T) string {
	const n, lo, hi = 16000, 1, 20
	rows := []multiBinRow{{"`boundaries=11`", "boundaries=11", []int{11}, 2, false},
		{"`boundaries=6,11,16`", "boundaries=6,11,16", []int{6, 11, 16}, 4, false},
		{"`k=2` (Algorithm 6, cut %s)", "k=2", nil, 2, true}, {"`k=4` (Algorithm 6, cuts %s)", "k=4", nil, 4, true}}
	one, oneStatic := multiBinRun(t, "linear", lo, hi, n, "k=1"), multiBinRun(t, "linear-static", lo, hi, n, "k=1")
	var b strings.Builder
	b.WriteString("| bins | `linear` req/s | gain | `linear-static` req/s | gain | closed form | closed form with 5 ms per batch |\n|---|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| K = 1 | %.2f | — | %.2f | — | — | — |\n", one, oneStatic)
	for _, r := range rows {
		cuts := r.cuts
		if r.auto {
			cuts = algorithm6Cuts(t, lo, hi, n, r.k)
			r.label = fmt.Sprintf(r.label, joinInts(cuts))
		}
		x, xs := multiBinRun(t, "linear", lo, hi, n, r.bins), multiBinRun(t, "linear-static", lo, hi, n, r.bins)
		closed, err := policies.MultiBinGainDiscrete(lo, hi, 8, cuts)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "| %s | %.2f | %+.1f %% | %.2f | %+.1f %% | %+.1f %% | %+.1f %% |\n", r.label, x, 100*(x/one-1), xs,
			100*(xs/oneStatic-1), 100*closed, 100*gatherGain(lo, hi, cuts))
	}
	return b.String()
}

func tableMultiBinContinuous(t *testing.T) string {
	const n, lo, hi = 8000, 50, 1000
	rows := []multiBinRow{{"`boundaries=525`", "boundaries=525", nil, 2, false}, {"`boundaries=288,525,763`", "boundaries=288,525,763", nil, 4, false},
		{"`k=2` (Algorithm 6, cut %s)", "k=2", nil, 2, true}, {"`k=4` (Algorithm 6, cuts %s)", "k=4", nil, 4, true}}
	oneStatic, one := multiBinRun(t, "linear-static", lo, hi, n, "k=1"), multiBinRun(t, "linear", lo, hi, n, "k=1")
	var b strings.Builder
	b.WriteString("| bins | `linear-static` req/s | gain | `linear` req/s | gain | closed form |\n|---|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| K = 1 | %.4f | — | %.4f | — | — |\n", oneStatic, one)
	for _, r := range rows {
		if r.auto {
			r.label = fmt.Sprintf(r.label, joinInts(algorithm6Cuts(t, lo, hi, n, r.k)))
		}
		xs, x := multiBinRun(t, "linear-static", lo, hi, n, r.bins), multiBinRun(t, "linear", lo, hi, n, r.bins)
		closed, err := policies.MultiBinGainUniform(lo, hi, 8, r.k)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "| %s | %.4f | %+.1f %% | %.4f | %+.1f %% | %+.1f %% |\n", r.label, xs, 100*(xs/oneStatic-1), x, 100*(x/one-1), 100*closed)
	}
	return b.String()
}

// algorithm6Cuts are the inner edges Algorithm 6 draws from the first
// 200 output lengths of the experiment's workload (the queue's
// warm-up with the oracle predictor).
func algorithm6Cuts(t *testing.T, lo, hi, n, k int) []int {
	src, err := traces.NewWorkload("uniform-lengths", traces.Params{{Name: "input_min", Value: traces.ParamInt(1)}, {Name: "input_max", Value: traces.ParamInt(1)}, {Name: "output_min", Value: traces.ParamInt(lo)},
		{Name: "output_max", Value: traces.ParamInt(hi)}, {Name: "requests", Value: traces.ParamInt(n)}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var lengths []int
	for len(lengths) < 200 {
		r, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		lengths = append(lengths, r.OutputTokens)
	}
	var cuts []int
	for _, br := range policies.EqualMassBoundaries(lengths, k)[1:] {
		cuts = append(cuts, br.Lo)
	}
	return cuts
}

// gatherGain is the closed-form gain when every batch also waits the
// static engine's gather window: batch time β·E[max] + window.
func gatherGain(lo, hi int, cuts []int) float64 {
	beta := engine.LinearLatency().Beta.Seconds()
	w := 0.005
	edges := append(append([]int{lo}, cuts...), hi+1)
	mean := 0.0
	for i := 0; i+1 < len(edges); i++ {
		a, z := edges[i], edges[i+1]-1
		mean += float64(z-a+1) / float64(hi-lo+1) * (beta*policies.ExpectedMaxDiscrete(a, z, 8) + w)
	}
	return (beta*policies.ExpectedMaxDiscrete(lo, hi, 8)+w)/mean - 1
}

func tableVTCArena(t *testing.T) string {
	trace := experimentTrace(t, "vtc_lmsys_arena/real_trace.jsonl")
	var b strings.Builder
	b.WriteString("| capacity | queue | req/s | window s | service diff max | service diff mean | Jain | TTFT p50 s | TTFT p99 s |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range []string{"2", "3", "4", "5", "6", "8"} {
		var f metrics.Fairness
		for _, q := range []string{"fcfs", "vtc"} {
			_, s := simReplay(t, "replay", "--trace", trace, "--sim", "1", "--mock-blocks", "625", "--backend-capacity", c,
				"--policy", "round-robin", "--queue", q)
			max, mean := fmt.Sprintf("%.1f", s.Fairness.ServiceDiffMax), fmt.Sprintf("%.1f", s.Fairness.ServiceDiffMean)
			if q == "vtc" {
				max += fmt.Sprintf(" (%+.0f %%)", 100*(s.Fairness.ServiceDiffMax/f.ServiceDiffMax-1))
				mean += fmt.Sprintf(" (%+.0f %%)", 100*(s.Fairness.ServiceDiffMean/f.ServiceDiffMean-1))
			}
			f = s.Fairness
			fmt.Fprintf(&b, "| %s | %s | %.3f | %.0f | %s | %s | %.3f | %.2f | %.2f |\n", c, q, s.Throughput.Requests, s.Window.Seconds,
				max, mean, s.Fairness.Jain, s.TTFT.P50/1000, s.TTFT.P99/1000)
		}
	}
	return b.String()
}

func tableVTCTwoUsers(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| capacity | queue | u0 service (64–600 s) | u1 service | u0 : u1 | Jain | req/s |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, c := range []string{"3", "4", "5"} {
		for _, q := range []string{"fcfs", "vtc"} {
			_, s := simReplay(t, "replay", "--workload", "multi-tenant", "-p", "users=2", "-p", "heavy_share=0.6666667",
				"-p", "length_spread=0", "-p", "system_len=0", "-p", "input_len=256", "-p", "output_len=256", "-p", "jitter=0",
				"-p", "rate=4.5", "-p", "requests=2700", "--sim", "1", "--mock-blocks", "625", "--backend-capacity", c,
				"--policy", "round-robin", "--queue", q)
			u0 := serviceBetween(s.Series.UserService["u0"], 64, 600)
			u1 := serviceBetween(s.Series.UserService["u1"], 64, 600)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f : 1 | %.3f | %.2f |\n", c, q, thousands(u0), thousands(u1), u0/u1,
				s.Fairness.Jain, s.Throughput.Requests)
		}
	}
	return b.String()
}

// pct formats a rate as "18.2 %", n/a when unknown.
func pct(v float64) string {
	if v != v {
		return "n/a"
	}
	return fmt.Sprintf("%.1f %%", 100*v)
}

// cv formats a coefficient of variation ("0" when exactly even).
func cv(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%.3f", v)
}

// perBackend is "3004 / 2951 / …", requests per backend.
func perBackend(s *metrics.Summary) string {
	parts := make([]string, len(s.Backends))
	for i, b := range s.Backends {
		parts[i] = strconv.FormatInt(b.Requests, 10)
	}
	return strings.Join(parts, " / ")
}

// joinInts is "5, 11, 15".
func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

// thousands formats a count with thousands separators.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
