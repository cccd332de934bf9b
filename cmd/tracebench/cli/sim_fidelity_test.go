package cli

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/reports"
)

// fidelityTolerance is how far (relative to the real-time mock) a
// simulated figure may be: the mock adds loopback HTTP, JSON and SSE
// costs the simulator does not model (1–3 ms per request on a loaded
// two-core machine; see docs/scale.md).
const fidelityTolerance = 0.10

// fidelityStarved is the mock step lateness p99 (ms) and client schedule
// lag p99 (ms) above which the machine, not the model, shaped the
// real-time run, and the comparison is skipped.
const fidelityStarved = 3.0

// TestSimMatchesMock replays the same small shared-prefix workload (80
// requests at 12 req/s, 8 system prompts of 1,024 tokens, 512-token
// questions) with a load-aware router on four simulated engines (--sim 4)
// and on a four-replica real-time mock fleet over loopback HTTP (--mock
// 4), and requires TTFT p50 and p90, TPOT p50, throughput and the server
// hit rate to agree within 10 %. The router sees in-flight counts, so the
// two runs route alike only if the simulator's timing is right.
func TestSimMatchesMock(t *testing.T) {
	if testing.Short() || raceBuild() {
		t.Skip("real-time mock run: skipped with -short and -race (the race detector slows the HTTP path, not the model)")
	}
	args := []string{"replay", "--workload", "shared-prefix", "-p", "requests=80", "-p", "rate=12", "-p", "question_len=512",
		"--policy", "least-request"}
	dir := t.TempDir()
	sim := runFidelity(t, slices.Concat(args, []string{"--sim", "4", "--out", filepath.Join(dir, "sim.jsonl")}))
	mock := runFidelity(t, slices.Concat(args, []string{"--mock", "4", "--out", filepath.Join(dir, "mock.jsonl")}))
	if l, lag := mock.MockStepLate.P99, mock.ScheduleLag.P99; l > fidelityStarved || lag > fidelityStarved {
		t.Skipf("the machine starved the real-time run: mock step lateness p99 %.2f ms, client schedule lag p99 %.2f ms "+
			"(over %.0f ms); the comparison would measure the machine", l, lag, fidelityStarved)
	}
	rows := fidelityRows(sim, mock)
	var report strings.Builder
	failed := false
	for _, r := range rows {
		ok := withinRel(r.sim, r.mock, fidelityTolerance)
		failed = failed || !ok
		fmt.Fprintf(&report, "%-16s sim %10.3f  mock %10.3f  %+6.1f %%  %v\n", r.name, r.sim, r.mock,
			100*(r.sim-r.mock)/r.mock, map[bool]string{true: "ok", false: "OFF"}[ok])
	}
	if failed {
		t.Fatalf("--sim 4 and --mock 4 disagree by more than %.0f %%:\n%s", 100*fidelityTolerance, report.String())
	}
	t.Logf("--sim 4 vs --mock 4:\n%s", report.String())
}

// fidelityRow is one compared figure.
type fidelityRow struct {
	name      string
	sim, mock float64
}

// fidelityRows lists the figures the simulator must reproduce.
func fidelityRows(sim, mock *reports.Summary) []fidelityRow {
	return []fidelityRow{
		{"TTFT p50 ms", sim.TTFT.P50, mock.TTFT.P50},
		{"TTFT p90 ms", sim.TTFT.P90, mock.TTFT.P90},
		{"TPOT p50 ms", sim.TPOT.P50, mock.TPOT.P50},
		{"req/s", sim.Throughput.Requests, mock.Throughput.Requests},
		{"output tok/s", sim.Throughput.OutputTokens, mock.Throughput.OutputTokens},
		{"server hit rate", sim.HitRate.Server, mock.HitRate.Server},
	}
}

// withinRel reports whether got is within tol of want, relative to want.
func withinRel(got, want, tol float64) bool {
	return want > 0 && math.Abs(got-want) <= tol*want
}

// runFidelity runs one replay and summarises its results file, requiring
// every request to succeed.
func runFidelity(t *testing.T, args []string) *reports.Summary {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Run(args, &stdout, &stderr); code != ExitOK {
		t.Fatalf("%v: exit %d; stderr:\n%s", args, code, stderr.String())
	}
	sum, err := reports.Summarize(args[len(args)-1], reports.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requests != 80 || sum.OK != 80 {
		t.Fatalf("%v: %d requests, %d ok; want 80 ok", args, sum.Requests, sum.OK)
	}
	return sum
}

// raceBuild reports whether the test binary was built with -race.
func raceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, st := range bi.Settings {
		if st.Key == "-race" {
			return st.Value == "true"
		}
	}
	return false
}
