package replay

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// signalWriter is a goroutine-safe buffer that signals its first write.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() == 0 {
		close(w.first)
	}
	return w.buf.Write(p)
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestProgressLines checks the plain progress output (stderr not a
// terminal): periodic lines, then a last one when the display stops, with
// done/total, in flight, held, the achieved rate and errors, and no "/0"
// when the total is unknown.
func TestProgressLines(t *testing.T) {
	tests := []struct {
		name  string
		total int64
		want  string // regexp of the last line
	}{
		{"known total", 10, `^run: 7/10 done  in-flight 2  held 1  [0-9.]+ req/s  errors 3$`},
		{"unknown total", 0, `^run: 7 done  in-flight 2  held 1  [0-9.]+ req/s  errors 3$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Counters{}
			c.Sent.Store(9)
			c.Done.Store(7)
			c.InFlight.Store(2)
			c.Held.Store(1)
			c.Errors.Store(3)
			out := &signalWriter{first: make(chan struct{})}
			stop := ShowProgress(context.Background(), out, false, "run", tc.total, c, time.Millisecond)
			<-out.first
			stop()
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) < 2 {
				t.Fatalf("want periodic lines and a last one, got %q", out.String())
			}
			for _, l := range lines {
				if !regexp.MustCompile(tc.want).MatchString(l) {
					t.Fatalf("progress line %q does not match %q", l, tc.want)
				}
			}
		})
	}
}

// TestProgressShortRunSilent checks a run shorter than the period prints
// no progress line, so a one-line error stays one line.
func TestProgressShortRunSilent(t *testing.T) {
	var out bytes.Buffer
	stop := ShowProgress(context.Background(), &out, false, "run", 5, &Counters{}, time.Hour)
	stop()
	if out.Len() != 0 {
		t.Fatalf("a run shorter than the period printed %q", out.String())
	}
}
