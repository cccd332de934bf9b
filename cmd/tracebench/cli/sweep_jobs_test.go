package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepSimJobsMatchSerial: sweep --sim with policies swept side by
// side writes the same sweep.csv and run files, byte for byte apart from
// the headers' wall-clock start, as one policy at a time.
func TestSweepSimJobsMatchSerial(t *testing.T) {
	var dirs []string
	for _, jobs := range []string{"1", "3"} {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := Run([]string{"sweep", "--sim", "2", "--policies", "round-robin,least-request,prefix-cache",
			"--max-requests", "150", "--max-runs", "4", "--jobs", jobs, "--out", dir}, &stdout, &stderr)
		if code != ExitOK {
			t.Fatalf("--jobs %s: exit %d; stderr:\n%s", jobs, code, stderr.String())
		}
		dirs = append(dirs, dir)
	}
	runs, err := filepath.Glob(filepath.Join(dirs[0], "runs", "*.jsonl"))
	if err != nil || len(runs) < 6 {
		t.Fatalf("%d run files (%v)", len(runs), err)
	}
	files := []string{"sweep.csv"}
	for _, r := range runs {
		files = append(files, filepath.Join("runs", filepath.Base(r)))
	}
	for _, f := range files {
		a, errA := os.ReadFile(filepath.Join(dirs[0], f))
		b, errB := os.ReadFile(filepath.Join(dirs[1], f))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", f, errA, errB)
		}
		strip := func(x []byte) []byte { return startedField.ReplaceAll(x, []byte(`"started":""`)) }
		if !bytes.Equal(strip(a), strip(b)) {
			t.Errorf("%s differs between --jobs 1 and --jobs 3", f)
		}
	}
}

func TestSweepJobsNeedSim(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Run([]string{"sweep", "--mock", "2", "--policies", "round-robin", "--jobs", "2", "--out", t.TempDir()}, &stdout, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "--jobs 2: only --sim runs go side by side") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
