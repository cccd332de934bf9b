package reports

import (
	"os"
	"testing"
	"time"
)

func TestSmokeReport(t *testing.T) {
	dir := os.Getenv("REPORT_SMOKE_DIR")
	if dir == "" {
		t.Skip("REPORT_SMOKE_DIR not set")
	}
	users := []string{"alice", "bob", "carol", "dave", "erin"}
	o := DefaultOptions()
	o.SLO.TTFT, o.SLO.TPOT = 300*time.Millisecond, 30*time.Millisecond
	var runs []*Summary
	for i, p := range []synthRun{
		{policy: "round-robin", n: 2000, backends: 4, users: users, rate: 20, ttft: 80 * time.Millisecond, tbt: 20 * time.Millisecond, seed: 1},
		{policy: "prefix-cache", n: 2000, backends: 4, users: users, rate: 20, ttft: 50 * time.Millisecond, tbt: 18 * time.Millisecond, errEvery: 50, seed: 2, multiBin: true},
	} {
		_ = i
		s, err := Summarize(p.write(t, t.TempDir()), o)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, s)
	}
	if err := WriteMarkdown(dir, runs, RenderOptions{PNG: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(os.Stdout, runs); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(os.Stdout, runs); err != nil {
		t.Fatal(err)
	}
}
