//go:build !race

package cli

import "testing"

// TestExperimentPD checks the shapes of docs/experiments.md's experiment
// 9 on smaller runs: on long prompts P/D 3:1 decodes far more steadily
// than aggregated serving and 1:3 starves prefill; on chat every split
// lowers the TPOT tail.
func TestExperimentPD(t *testing.T) {
	long := []string{"--workload", "uniform-lengths", "-p", "requests=120", "-p", "input_min=3000", "-p", "input_max=7000",
		"-p", "output_min=32", "-p", "output_max=256", "--rate", "5"}
	chat := []string{"--workload", "mixed", "-p", "requests=200", "--rate", "24"}
	run := func(w []string, ratio string) (float64, float64) {
		args := append([]string{"replay", "--sim", "4", "--policy", "least-request"}, w...)
		if ratio != "" {
			args = append(args, "--pd-ratio", ratio)
		}
		_, s := simReplay(t, args...)
		t.Logf("%v %s: TTFT p50 %.0f ms, TPOT p99 %.1f ms", w[1], ratio, s.TTFT.P50, s.TPOT.P99)
		return s.TTFT.P50, s.TPOT.P99
	}
	aggTTFT, aggTPOT := run(long, "")
	_, tpot31 := run(long, "3:1")
	ttft13, _ := run(long, "1:3")
	if tpot31 > aggTPOT/2 {
		t.Errorf("long prompts: P/D 3:1 TPOT p99 %.1f ms, want under half aggregated's %.1f", tpot31, aggTPOT)
	}
	if ttft13 < 5*aggTTFT {
		t.Errorf("long prompts: P/D 1:3 TTFT p50 %.0f ms, want over 5× aggregated's %.0f (prefill starved)", ttft13, aggTTFT)
	}
	_, chatAgg := run(chat, "")
	for _, r := range []string{"1:3", "2:2", "3:1"} {
		if _, tp := run(chat, r); tp >= chatAgg {
			t.Errorf("chat: P/D %s TPOT p99 %.1f ms, want below aggregated's %.1f", r, tp, chatAgg)
		}
	}
}
