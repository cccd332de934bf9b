package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// summaryRow reads dir/summary.csv's first run as column → value.
func summaryRow(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("summary.csv: %v, %d rows", err, len(rows))
	}
	col := map[string]string{}
	for i, h := range rows[0] {
		col[h] = rows[1][i]
	}
	return col
}

// pricedProfile writes the small-kv profile with a price of perHour.
func pricedProfile(t *testing.T, perHour float64) string {
	t.Helper()
	p, err := profile.Builtin("small-kv")
	if err != nil {
		t.Fatal(err)
	}
	p.CostPerHour = perHour
	b, err := profile.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "priced.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCostSources prices a run from each source, the flag first.
func TestCostSources(t *testing.T) {
	f := startTestFleet(t, "")
	list := filepath.Join(t.TempDir(), "targets")
	var lines []string
	for i, u := range f.URLs() {
		lines = append(lines, u+" cost_per_hour="+strconv.Itoa(i+1))
	}
	if err := os.WriteFile(list, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileSum := 0
	for i := range f.URLs() {
		fileSum += i + 1
	}
	prof := pricedProfile(t, 4)
	for _, tt := range []struct {
		name  string
		args  []string
		fleet string
	}{
		{"flag", []string{"--sim", "2", "--cost-per-hour", "1.5"}, "3"},
		{"flag over profile", []string{"--sim", "2", "--mock-profile", prof, "--cost-per-hour", "1"}, "2"},
		{"profile", []string{"--sim", "2", "--mock-profile", prof}, "8"},
		{"targets file", []string{"--targets-file", list}, strconv.Itoa(fileSum)},
		{"none", []string{"--sim", "2"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"replay", "--workload", "shared-prefix", "--max-requests", "8", "--rate", "40",
				"--policy", "round-robin", "--out", filepath.Join(dir, "r.jsonl"), "--report-dir", dir}, tt.args...)
			if code, _, stderr := runCLI(t, args...); code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			col := summaryRow(t, dir)
			if col["cost_fleet_per_hour"] != tt.fleet {
				t.Errorf("fleet $/hour %q, want %q", col["cost_fleet_per_hour"], tt.fleet)
			}
			if priced := col["cost_per_m_output_tokens"] != ""; priced != (tt.fleet != "") {
				t.Errorf("$/M output tokens %q with fleet price %q", col["cost_per_m_output_tokens"], tt.fleet)
			}
		})
	}
}

// TestCostBadInput: a bad price is one line naming its flag, or its file,
// line and field.
func TestCostBadInput(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "fleet.txt")
	if err := os.WriteFile(list, []byte("http://127.0.0.1:1\nhttp://127.0.0.1:2 cost_per_hour=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--sim", "1", "--cost-per-hour", "-2"}, "--cost-per-hour: \"-2\": negative price"},
		{[]string{"bench", "--sim", "1", "--cost-per-hour", "abc"}, "--cost-per-hour: \"abc\": want a price"},
		{[]string{"report", "--cost-per-hour", "-1", "r.jsonl"}, "--cost-per-hour: \"-1\": negative price"},
		{[]string{"replay", "--targets-file", list}, "fleet.txt:2: field cost_per_hour: \"x\""},
		{[]string{"bench", "--sim", "1", "--rank", "cheap"}, "--rank \"cheap\""},
		{[]string{"bench", "--sim", "1", "--rank", "cost:2"}, "attainment \"2\""},
	} {
		code, _, stderr := runCLI(t, append(tt.args, "--out", filepath.Join(dir, "o"))...)
		msg := strings.TrimSpace(stderr)
		if code != ExitUsage || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want usage error naming %q on one line", tt.args, code, msg, tt.want)
		}
	}
}

// TestBenchRankCost: bench --rank cost names the cheapest policy under
// the SLO before the verdict, and the report has the cost table.
func TestBenchRankCost(t *testing.T) {
	dir := t.TempDir()
	var so, se bytes.Buffer
	code := Run([]string{"bench", "--sim", "2", "--policies", "round-robin,least-request", "--max-requests", "40",
		"--slo-ttft", "10s", "--slo-tpot", "1s", "--cost-per-hour", "2", "--rank", "cost:0.5", "--out", dir}, &so, &se)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.HasPrefix(so.String(), "Cheapest under the SLO (attainment ≥ 50.0 %): ") {
		t.Errorf("bench --rank cost does not open with the cheapest policy:\n%s", so.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "### Cost") || !strings.Contains(string(md), "Price from --cost-per-hour") {
		t.Errorf("report.md has no cost table")
	}
}

// TestSweepParetoAndCost: a sweep draws the Pareto plot as an SVG file
// and in report.html, and prices its runs.
func TestSweepParetoAndCost(t *testing.T) {
	dir := t.TempDir()
	var so, se bytes.Buffer
	code := Run([]string{"sweep", "--sim", "2", "--policies", "round-robin,prefix-cache", "--rates", "5,20",
		"--max-requests", "60", "--cost-per-hour", "2", "--out", dir}, &so, &se)
	if code != ExitOK {
		t.Fatalf("sweep exit %d: %s", code, se.String())
	}
	svg, err := os.ReadFile(filepath.Join(dir, "plots", "sweep-pareto.svg"))
	if err != nil || !bytes.Contains(svg, []byte("round-robin")) || !bytes.Contains(svg, []byte("prefix-cache")) {
		t.Fatalf("Pareto SVG: %v, legend of both policies: %v", err, bytes.Contains(svg, []byte("prefix-cache")))
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !bytes.Contains(html, []byte(`id="plot-pareto"`)) {
		t.Fatalf("report.html lacks the Pareto plot (%v)", err)
	}
	if !bytes.Contains(html, []byte("$ / M output tokens")) {
		t.Error("the sweep's report.html has no cost table")
	}
}

// FuzzTargetPrice: any targets file line gives a price ≥ 0 or an error
// on one line.
func FuzzTargetPrice(f *testing.F) {
	for _, s := range []string{"http://a:1 cost_per_hour=2.5", "http://a:1 role=decode cost_per_hour=-1", "# x", "",
		"a cost_per_hour=", "a cost_per_hour=NaN", "\t cost_per_hour=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		_, v, ok, err := targetPrice(line)
		if err == nil && ok && !(v >= 0) {
			t.Fatalf("%q: price %v without an error", line, v)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("%q: error on several lines: %v", line, err)
		}
	})
}

// TestTargetsFilePriceDNS: a priced dns+http:// line prices every
// address its name resolves to.
func TestTargetsFilePriceDNS(t *testing.T) {
	old := lookupHost
	defer func() { lookupHost = old }()
	lookupHost = func(_ context.Context, name string) ([]string, error) { return []string{"10.0.0.2", "10.0.0.1"}, nil }
	list := filepath.Join(t.TempDir(), "fleet.txt")
	body := "dns+http://vllm:8000 cost_per_hour=2\nhttp://other:8000 cost_per_hour=5\n"
	if err := os.WriteFile(list, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m := fleetFlags{TargetsFile: list}
	targets, err := m.allTargets(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, reason := m.price.FleetPerHour(targets)
	if got != 9 || reason != "" || m.price.Source != "targets file "+list {
		t.Errorf("fleet of %v: $%v/hour (%q, source %q); want $9/hour", targets, got, reason, m.price.Source)
	}
}
