package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSim runs a simulated bench of three policies over two seeds into
// dir with the workload parameters extra.
func benchSim(t *testing.T, dir string, extra ...string) {
	t.Helper()
	var so, se bytes.Buffer
	args := append([]string{"bench", "--sim", "2", "--policies", "round-robin,least-request,prefix-cache",
		"--workload", "mixed", "-p", "requests=60", "--seeds", "2", "--out", dir}, extra...)
	if code := Run(args, &so, &se); code != 0 {
		t.Fatalf("bench exit %d: %s", code, se.String())
	}
}

// TestPredictBenchDir predicts a simulated bench directory with its own
// profile: every policy, the rank agreement and both verdicts; --record
// stores the agreement, and a bench on that profile quotes it.
func TestPredictBenchDir(t *testing.T) {
	dir := t.TempDir()
	prof := writeProfile(t, dir, truthProfile)
	b := filepath.Join(dir, "bench")
	benchSim(t, b, "--mock-profile", prof)
	var so, se bytes.Buffer
	if code := Run([]string{"predict", b, "--profile", prof, "--out", filepath.Join(dir, "pred"), "--record"}, &so, &se); code != 0 {
		t.Fatalf("predict exit %d: %s", code, se.String())
	}
	out := so.String()
	for _, want := range []string{"round-robin (2 seed(s), means)", "least-request (2 seed(s), means)",
		"prefix-cache (2 seed(s), means)", "Kendall τ", "server hit rate", "measured verdict", "simulated verdict", "recorded in"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not predicted") {
		t.Errorf("a run was not predicted:\n%s", out)
	}
	so.Reset()
	se.Reset()
	if code := Run([]string{"bench", "--sim", "2", "--mock-profile", prof, "--policies", "round-robin,prefix-cache",
		"--workload", "mixed", "-p", "requests=30", "--out", filepath.Join(dir, "b2")}, &so, &se); code != 0 {
		t.Fatalf("bench exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "on its last recorded bench") {
		t.Errorf("the bench verdict does not quote the recorded agreement:\n%s", so.String())
	}
}

// TestPredictBenchDirBadInput: a missing results file, a partial one and
// one from another workload are each named, and the rest is predicted.
func TestPredictBenchDirBadInput(t *testing.T) {
	dir := t.TempDir()
	b, other := filepath.Join(dir, "bench"), filepath.Join(dir, "other")
	benchSim(t, b)
	benchSim(t, other, "-p", "requests=40")
	if err := os.Remove(filepath.Join(b, "seed-1", "results-least-request.jsonl")); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(b, "results-prefix-cache.jsonl")
	data, err := os.ReadFile(partial)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	if err := os.WriteFile(partial, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(filepath.Join(other, "seed-1", "results-round-robin.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "seed-1", "results-round-robin.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	if code := Run([]string{"predict", b, "--profile", "default", "--out", filepath.Join(dir, "pred")}, &so, &se); code != 0 {
		t.Fatalf("predict exit %d: %s", code, se.String())
	}
	out := so.String()
	for _, want := range []string{
		"not predicted: seed-1/results-least-request.jsonl: missing",
		"not predicted: results-prefix-cache.jsonl: partial: no stop record",
		"not predicted: seed-1/results-round-robin.jsonl: from another workload: field WorkloadArgs",
		"round-robin (1 seed(s), means)", "least-request (1 seed(s), means)", "prefix-cache (1 seed(s), means)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// TestPredictDirMissingWorkload: in a directory of recorded runs, a run
// whose workload file is gone is named with that file, and the others
// are still predicted (it must not stand for its seed's workload).
func TestPredictDirMissingWorkload(t *testing.T) {
	live, err := os.ReadFile(filepath.Join(recordedGPU, "live-mod.jsonl"))
	if err != nil {
		t.Skipf("recorded runs not beside the repository: %v", err)
	}
	wl, err := os.ReadFile(filepath.Join(recordedGPU, "wl-mod.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gone := bytes.ReplaceAll(live, []byte("wl-mod.jsonl"), []byte("wl-gone.jsonl"))
	for name, data := range map[string][]byte{"results-a.jsonl": gone, "results-b.jsonl": live, "wl-mod.jsonl": wl} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var so, se bytes.Buffer
	if code := Run([]string{"predict", dir, "--profile", "default", "--out", filepath.Join(t.TempDir(), "pred")}, &so, &se); code != 0 {
		t.Fatalf("predict exit %d: %s", code, se.String())
	}
	out := so.String()
	for _, want := range []string{"results-a.jsonl: its workload file wl-gone.jsonl is missing", "b (1 seed(s), means)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
