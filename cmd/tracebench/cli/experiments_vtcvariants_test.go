//go:build !race

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// TestExperimentVTCVariants is the VTC artifact's comparison on its own
// synthetic workloads (workload vtc-suite), one replica of 4 slots, in
// virtual time. overload: fcfs serves the users in their 1 : 2 demand
// ratio, every VTC variant 1 : 1 (±5 %) in 64..360 s at the same
// throughput. on-off-overload: lcf (no counter lift) lets the returning
// user take over, so its max service difference is over 5 × every
// variant's. overload-weighted: vtc with weights 1..4 serves 1 : 2 : 3 : 4
// (±5 %).
func TestExperimentVTCVariants(t *testing.T) {
	run := func(suite, queue string, extra ...string) *metrics.Summary {
		args := append([]string{"replay", "--workload", "vtc-suite", "-p", "suite=" + suite, "--sim", "1",
			"--mock-blocks", "625", "--backend-capacity", "4", "--policy", "round-robin", "--queue", queue}, extra...)
		_, s := simReplay(t, args...)
		return s
	}
	variants := []string{"vtc", "vtc-oracle", "vtc-predict", "vtc-max-fair"}
	fcfs := run("overload", "fcfs")
	if r := ratios(fcfs, 64, 360); r[1] < 1.9 || r[1] > 2.1 {
		t.Errorf("overload fcfs: u1 : u0 = %.2f, want about 2", r[1])
	}
	lcf := run("on-off-overload", "lcf")
	for _, q := range variants {
		t.Run(q, func(t *testing.T) {
			s := run("overload", q)
			r := ratios(s, 64, 360)
			t.Logf("overload: u1 : u0 = %.3f, %.3f req/s (fcfs %.3f), service diff max %.1f mean %.1f",
				r[1], s.Throughput.Requests, fcfs.Throughput.Requests, s.Fairness.ServiceDiffMax, s.Fairness.ServiceDiffMean)
			if r[1] < 0.95 || r[1] > 1.05 {
				t.Errorf("overload: u1 : u0 = %.3f, want 1 ± 0.05", r[1])
			}
			if d := s.Throughput.Requests / fcfs.Throughput.Requests; d < 0.99 || d > 1.01 {
				t.Errorf("throughput %.3f req/s against fcfs %.3f", s.Throughput.Requests, fcfs.Throughput.Requests)
			}
			on := run("on-off-overload", q)
			if !(lcf.Fairness.ServiceDiffMax > 5*on.Fairness.ServiceDiffMax) {
				t.Errorf("on-off: lcf max service difference %.1f, want over 5 × %s's %.1f", lcf.Fairness.ServiceDiffMax, q, on.Fairness.ServiceDiffMax)
			}
		})
	}
	w := run("overload-weighted", "vtc", "--queue-param", "weights=u0=1,u1=2,u2=3,u3=4")
	r := ratios(w, 64, 360)
	t.Logf("weighted vtc: %v", r)
	for i, got := range r {
		if want := float64(i + 1); got < 0.95*want || got > 1.05*want {
			t.Errorf("weighted: u%d : u0 = %.3f, want %.0f ± 5 %%", i, got, want)
		}
	}
}

// ratios returns each user's service in from..to seconds over u0's, users
// in name order.
func ratios(s *metrics.Summary, from, to float64) []float64 {
	names := make([]string, 0, len(s.Series.UserService))
	for u := range s.Series.UserService {
		names = append(names, u)
	}
	sort.Strings(names)
	base := serviceBetween(s.Series.UserService["u0"], from, to)
	out := make([]float64, len(names))
	for i, u := range names {
		out[i] = serviceBetween(s.Series.UserService[u], from, to) / base
	}
	return out
}

// TestVTCWeightsFromSLOFile: per-user weights in the --slo-file reach a
// VTC queue (here vtc-max-fair) that was given none, and serve the four
// equal senders 1 : 2 : 3 : 4; weights given both there and as a queue
// parameter are a usage error naming both.
func TestVTCWeightsFromSLOFile(t *testing.T) {
	slo := filepath.Join(t.TempDir(), "slo.yaml")
	text := "users:\n  u0: {weight: 1}\n  u1: {weight: 2}\n  u2: {weight: 3, ttft: 5s}\n  u3: {weight: 4}\n"
	if err := os.WriteFile(slo, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"replay", "--workload", "vtc-suite", "-p", "suite=overload-weighted", "--sim", "1",
		"--mock-blocks", "625", "--backend-capacity", "4", "--policy", "round-robin", "--queue", "vtc-max-fair",
		"--slo-file", slo}
	_, s := simReplay(t, args...)
	r := ratios(s, 64, 360)
	t.Logf("weights from the SLO file: %v", r)
	for i, got := range r {
		if want := float64(i + 1); got < 0.95*want || got > 1.05*want {
			t.Errorf("u%d : u0 = %.3f, want %.0f ± 5 %%", i, got, want)
		}
	}
	var stdout, stderr bytes.Buffer
	both := append(append([]string(nil), args...), "--queue-param", "weights=u0=2", "--out", filepath.Join(t.TempDir(), "r.jsonl"))
	if code := Run(both, &stdout, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "--slo-file") ||
		!strings.Contains(stderr.String(), "weights") {
		t.Errorf("weights in both places: exit %d, stderr %q; want a usage error naming both", code, stderr.String())
	}
}
