package reports

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

func writeIntro(w io.Writer, runs []*metrics.Summary) {
	if len(runs) == 0 {
		fmt.Fprint(w, "No runs.\n\n")
		return
	}
	h := runs[0].Header
	if sameWorkload(runs) {
		fmt.Fprintf(w, "%d run(s) of the workload `%s` against %d %s backend(s). ", len(runs), h.Trace,
			len(h.Backends), h.Mode)
		if len(runs) > 1 {
			fmt.Fprint(w, "Each run replays the same requests with one policy (a Router, plus a client-side Queue when not `fcfs`). ")
		}
	} else {
		fmt.Fprintf(w, "%d runs of **different** workloads or fleets (see the run configuration): "+
			"compare their figures with care. ", len(runs))
	}
	fmt.Fprint(w, "Latencies are in milliseconds and count from each request's intended arrival time, so time spent waiting "+
		"in the client counts. Every figure is defined in the [glossary](#glossary) at the end.\n\n")
}

// sameWorkload reports whether every run replayed the same workload
// against the same number of backends in the same mode.
func sameWorkload(runs []*metrics.Summary) bool {
	for _, s := range runs[1:] {
		a, b := s.Header, runs[0].Header
		if a.Trace != b.Trace || a.Mode != b.Mode || len(a.Backends) != len(b.Backends) {
			return false
		}
	}
	return true
}

func writeConfig(w io.Writer, runs []*metrics.Summary) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprint(w, "## Run configuration\n\n")
	s := runs[0]
	h := s.Header
	if sameWorkload(runs) {
		fmt.Fprintf(w, "- workload: `%s`\n- target: %s, %d backend(s): %s\n", h.Trace, h.Mode, len(h.Backends),
			backendList(h.Backends))
	}
	fmt.Fprintf(w, "- seed: %d; tool version %s; started %s\n", h.Seed, h.Version, h.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "- SLO: %s; warm-up cut: %s\n- service weights w_in %g, w_out %g; fairness window %s\n",
		metrics.SLOText(s.Options.SLO), s.Options.Warmup, s.Options.ServiceWeights.In, s.Options.ServiceWeights.Out,
		s.Options.FairnessWindow)
	for _, line := range shardNotes(runs) {
		fmt.Fprintf(w, "- %s\n", line)
	}
	fmt.Fprintln(w)
	same := sameWorkload(runs)
	var rows [][]string
	for _, s := range runs {
		row := []string{mdEscape(s.Name()), mdEscape(s.Header.Router), paramText(s.Header.RouterParams),
			mdEscape(s.Header.Queue), paramText(s.Header.QueueParams), textfmt.Count(s.Requests),
			fmt.Sprintf("%.1f s", s.Window.Seconds), stopReason(s)}
		if !same {
			row = append(row, "`"+s.Header.Trace+"`", fmt.Sprintf("%s × %d", s.Header.Mode, len(s.Header.Backends)))
		}
		rows = append(rows, row)
	}
	head := []string{"run", "router", "router params", "queue", "queue params", "requests", "measured window", "stop"}
	if !same {
		head = append(head, "workload", "backends")
	}
	mdTable(w, head, "lllllrrlll", rows)
}

func backendList(b []string) string {
	if len(b) > 4 {
		return fmt.Sprintf("`%s` … `%s`", b[0], b[len(b)-1])
	}
	q := make([]string, len(b))
	for i, x := range b {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}

func paramText(p map[string]string) string {
	if len(p) == 0 {
		return "defaults"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, k+"="+p[k])
	}
	return mdEscape(strings.Join(parts, ", "))
}

// warnGroup is one problem and the runs it hit, with each run's detail.
type warnGroup struct {
	title, why string
	runs       []*metrics.Summary
	details    []string
}

// warningGroups groups the runs' warnings by problem, in the order first
// met.
func warningGroups(runs []*metrics.Summary) []*warnGroup {
	var order []*warnGroup
	groups := map[string]*warnGroup{}
	for _, s := range runs {
		for _, x := range s.Warns() {
			g, ok := groups[x.Title]
			if !ok {
				g = &warnGroup{title: x.Title, why: x.Why}
				groups[x.Title] = g
				order = append(order, g)
			}
			g.runs = append(g.runs, s)
			g.details = append(g.details, x.Detail)
		}
	}
	return order
}

// line is the group's line for its i-th run: its name (through esc) and
// the detail.
func (g *warnGroup) line(i int, esc func(string) string) string {
	l := esc(g.runs[i].Name())
	if g.details[i] != "" {
		l += ": " + g.details[i]
	}
	return l
}

func writeWarnings(w io.Writer, runs []*metrics.Summary) {
	groups := warningGroups(runs)
	if len(groups) == 0 {
		return
	}
	fmt.Fprint(w, "## Warnings\n\nThese say where the measurement itself is doubtful; read the figures below with them in mind.\n\n")
	for _, g := range groups {
		fmt.Fprintf(w, "- **%s**: %s.\n", textfmt.Capitalize(g.title), g.why)
		for i := range g.runs {
			fmt.Fprintf(w, "  - %s\n", g.line(i, mdEscape))
		}
	}
	fmt.Fprintln(w)
}

func writeComparison(w io.Writer, runs []*metrics.Summary) {
	fmt.Fprint(w, "## Comparison\n\n")
	if len(runs) > 1 {
		fmt.Fprint(w, "One row per run. **Bold** marks the best value of each column (hit predicted and requests are not ranked; "+
			"a value that more than half the runs share is not marked).")
		if allCompleted(runs) {
			fmt.Fprintf(w, " Every run completed all %d requests, so req/s and tok/s differ only by when the last "+
				"request finished; latency, SLA attainment and hit rate tell the policies apart.", runs[0].Requests)
		}
		fmt.Fprint(w, "\n\n")
	}
	head := []string{"run"}
	for _, c := range comparisonColumns {
		head = append(head, c.head)
	}
	marks := best(comparisonColumns, runs)
	var rows [][]string
	for i, s := range runs {
		row := []string{mdEscape(s.Name())}
		for c, col := range comparisonColumns {
			v := col.format(col.value(s))
			if marks[i][c] {
				v = "**" + v + "**"
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	mdTable(w, head, "l", rows)
}

// rateText shows requested / achieved arrival rates, or n/a.
func rateText(r metrics.RateCheck) string {
	if math.IsNaN(r.Requested) && math.IsNaN(r.Achieved) {
		return textfmt.NA
	}
	return textfmt.Num(r.Requested) + " / " + textfmt.Num(r.Achieved)
}

// allCompleted reports whether every run served the same requests
// without an error.
func allCompleted(runs []*metrics.Summary) bool {
	for _, s := range runs {
		if s.OK != s.Requests || s.Requests != runs[0].Requests || s.Requests == 0 {
			return false
		}
	}
	return true
}

// writeDetails writes the figures that did not fit the comparison table,
// in two tables: client and server timing, then load, cache and fairness.
func writeDetails(w io.Writer, runs []*metrics.Summary) {
	writeReasoning(w, runs)
	writeCost(w, runs)
	writeTiming(w, runs)
	fmt.Fprint(w, "### Load, cache and fairness detail\n\n")
	var rows [][]string
	for _, s := range runs {
		rows = append(rows, []string{mdEscape(s.Name()), textfmt.Num(s.Throughput.InputTokens), textfmt.Pct(s.HitRate.Scraped),
			textfmt.Frac(s.Balance.CVRequests), textfmt.Frac(s.Balance.CVTokens),
			textfmt.Num(s.Fairness.ServiceDiffMax), textfmt.Num(s.Fairness.ServiceDiffMean), textfmt.ErrorList(s.Errors)})
	}
	mdTable(w, []string{"run", "input tok/s", "hit scraped", "CV requests / backend", "CV tokens / backend",
		"service diff max tok/s", "service diff mean tok/s", "errors by class"}, "l", rows)
}

// writeTiming writes the timing detail table. The mock step lateness
// columns appear when any run measured it (runs against the in-process
// mock fleet, or scraping a `tracebench mock`), the host CPU column when
// any run measured that (real-time runs on Linux); a run without them
// shows n/a.
func writeTiming(w io.Writer, runs []*metrics.Summary) {
	mock := slices.ContainsFunc(runs, func(s *metrics.Summary) bool { return !math.IsNaN(s.MockStepLate.P99) })
	host := slices.ContainsFunc(runs, func(s *metrics.Summary) bool { return !math.IsNaN(s.Host.StealPct) || !math.IsNaN(s.Host.BusyPct) })
	fmt.Fprint(w, "### Timing detail\n\nWhere the time went: the servers (server TTFT), the client-side Queue (queue wait) "+
		"and the client itself (schedule lag)")
	if mock {
		fmt.Fprint(w, "; and how late the mock servers ran their own engine steps (mock step lateness, over every step "+
			"of every replica): when its p99 is a sizeable part of TBT, the machine rather than the latency model "+
			"shaped the timings")
		if slices.ContainsFunc(runs, func(s *metrics.Summary) bool { return s.MockStepLate.Lifetime }) {
			fmt.Fprint(w, ". Lateness marked (lifetime) was scraped from a separately started mock and covers every "+
				"step since it started, not only this run's; mock steps counts this run's steps")
		}
	}
	if host {
		fmt.Fprintf(w, "; and how much of the machine's CPU time the host gave to other guests (CPU steal) and "+
			"how much was busy: steal above %g %% means the host, not the policy, may have shaped the timings; "+
			"a load average above %g threads a CPU means other work waited for the CPUs, where a busy machine alone "+
			"may be CPU servers' own work", metrics.WarnHostStealPct, results.HostLoadPerCPU)
	}
	fmt.Fprint(w, ".\n\n")
	var rows [][]string
	for _, s := range runs {
		row := []string{mdEscape(s.Name()),
			textfmt.Num(distVal(s.ServerTTFT, s.ServerTTFT.P50)), textfmt.Num(distVal(s.ServerTTFT, s.ServerTTFT.P99)),
			textfmt.Num(distVal(s.QueueWait, s.QueueWait.P50)), textfmt.Num(distVal(s.QueueWait, s.QueueWait.P99)),
			textfmt.Num(distVal(s.ScheduleLag, s.ScheduleLag.P50)), textfmt.Num(distVal(s.ScheduleLag, s.ScheduleLag.P99)),
			textfmt.Num(distVal(s.ScheduleLag, s.ScheduleLag.Max)), rateText(s.Rate), textfmt.Num(s.TokensPerChunk)}
		if mock {
			row = append(row, latenessText(s.MockStepLate), textfmt.CountF(s.MockStepLate.Steps))
		}
		if host {
			row = append(row, hostText(s.Host))
		}
		rows = append(rows, row)
	}
	head := []string{"run", "server TTFT p50 ms", "server TTFT p99 ms", "queue wait p50 ms", "queue wait p99 ms",
		"sched lag p50 ms", "sched lag p99 ms", "sched lag max ms", "arrivals asked / got req/s", "tokens per chunk"}
	if mock {
		head = append(head, "mock step late p50 / p99 / max ms", "mock steps")
	}
	if host {
		head = append(head, "host CPU steal / busy %")
	}
	mdTable(w, head, "l", rows)
}

// hostText formats the host's CPU shares as "steal / busy" in percent
// with one decimal, then ", load L on N CPUs" when the run recorded its
// load average (n/a when not measured).
func hostText(h metrics.HostCPU) string {
	if math.IsNaN(h.StealPct) && math.IsNaN(h.BusyPct) {
		return textfmt.NA
	}
	one := func(v float64) string {
		if math.IsNaN(v) {
			return textfmt.NA
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	out := one(h.StealPct) + " / " + one(h.BusyPct)
	if h.CPUs >= 1 && !math.IsNaN(h.Load1) {
		out += fmt.Sprintf(", load %.1f on %.0f CPUs", h.Load1, h.CPUs)
	}
	return out
}

// latenessText formats step lateness as "p50 / p99 / max", followed by
// "(lifetime)" when it covers the mock's lifetime (n/a when not
// measured).
func latenessText(l metrics.Lateness) string {
	if math.IsNaN(l.P50) && math.IsNaN(l.P99) && math.IsNaN(l.Max) {
		return textfmt.NA
	}
	t := textfmt.Num(l.P50) + " / " + textfmt.Num(l.P99) + " / " + textfmt.Num(l.Max)
	if l.Lifetime {
		t += " (lifetime)"
	}
	return t
}

// shardNotes says, for every run merged from shards, how many ran and
// that each had its own Router and Queue state.
func shardNotes(runs []*metrics.Summary) []string {
	var out []string
	for _, s := range runs {
		if n := s.Header.Shards; n > 0 {
			out = append(out, fmt.Sprintf("%s: merged from %d shards; each shard ran its own Router and Queue state, "+
				"like %d separate gateway replicas", s.Name(), n, n))
		}
	}
	return out
}
