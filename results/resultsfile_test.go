package results

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeSample(t *testing.T, n int, stop bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := Create(path, Header{Version: Version, Policy: "random", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := w.WriteResult(&Result{Seq: int64(i), ID: "r", Done: time.Duration(i) * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteEvent(&Event{At: time.Second, Source: "vtc", Values: map[string]float64{"counter:a": 3}}); err != nil {
		t.Fatal(err)
	}
	if stop {
		if err := w.Close(Stop{Reason: "done", Elapsed: time.Second}); err != nil {
			t.Fatal(err)
		}
	} else {
		w.mu.Lock()
		w.f.Close()
		w.mu.Unlock()
	}
	return path
}

// mustOpenResults opens a results file for reading, closing it when the test
// ends; a file that cannot be opened or has no header fails the test.
func mustOpenResults(t *testing.T, path string) *Reader {
	t.Helper()
	rd, c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return rd
}

func readAll(t *testing.T, path string) (*Reader, int, int, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := NewReader(path, f)
	if err != nil {
		return nil, 0, 0, err
	}
	results, events := 0, 0
	for {
		r, e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rd, results, events, nil
		}
		if err != nil {
			return rd, results, events, err
		}
		if r != nil {
			results++
		}
		if e != nil {
			events++
		}
	}
}

func TestResultsFileRoundTrip(t *testing.T) {
	rd, n, ev, err := readAll(t, writeSample(t, 5, true))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{5, 1}, []int{n, ev}); diff != "" {
		t.Fatalf("results/events (-want +got): %s", diff)
	}
	if rd.Header.Seed != 7 || rd.Stop == nil || rd.Stop.Reason != "done" || rd.Truncated {
		t.Fatalf("header %+v stop %+v truncated %v", rd.Header, rd.Stop, rd.Truncated)
	}
}

func TestResultsFileTruncated(t *testing.T) {
	path := writeSample(t, 3, false)
	b, _ := os.ReadFile(path)
	// Cut the last line in half, as a killed writer would.
	cut := strings.LastIndex(strings.TrimRight(string(b), "\n"), "\n") + 20
	if err := os.WriteFile(path, b[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	rd, n, _, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || !rd.Truncated || rd.Stop != nil {
		t.Fatalf("read %d results, truncated %v, stop %v; want 3, true, nil", n, rd.Truncated, rd.Stop)
	}
}

func TestResultsFileErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"empty", "", "empty"},
		{"no header", `{"result":{"seq":1}}` + "\n", "line 1: first line is not a run header"},
		{"bad middle line", `{"header":{}}` + "\n{oops\n" + `{"stop":{"reason":"done"}}` + "\n", "line 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.jsonl")
			os.WriteFile(path, []byte(tc.body), 0o644)
			_, _, _, err := readAll(t, path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}
