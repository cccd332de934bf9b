package mockserver

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testLogger logs every level as text into the returned buffer.
func testLogger() (*slog.Logger, *syncBuffer) {
	var b syncBuffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), &b
}

// TestLateStepWarning: a step over warnLate late is logged once, later
// ones are counted, not logged, until warnEvery has passed; the next
// warning says how many went unlogged. The metric counts every step.
func TestLateStepWarning(t *testing.T) {
	log, buf := testLogger()
	l := newLateness()
	steps := []struct {
		late      time.Duration
		rewind    bool // the last warning is warnEvery old
		wantLines int
		wantText  string
	}{
		{5 * time.Millisecond, false, 0, ""},
		{20 * time.Millisecond, false, 1, "late_steps_not_logged=0"},
		{30 * time.Millisecond, false, 1, ""},
		{40 * time.Millisecond, false, 1, ""},
		{25 * time.Millisecond, true, 2, "late_steps_not_logged=2"},
	}
	for i, s := range steps {
		if s.rewind {
			l.warn.last = l.warn.last.Add(-warnEvery)
		}
		l.record(s.late, log)
		out := buf.String()
		if n := strings.Count(out, `msg="mock step ran late"`); n != s.wantLines {
			t.Fatalf("step %d (%v late): %d warning lines, want %d:\n%s", i, s.late, n, s.wantLines, out)
		}
		if !strings.Contains(out, s.wantText) || !strings.Contains(out, "level=WARN") && s.wantLines > 0 {
			t.Fatalf("step %d: log lacks %q at WARN:\n%s", i, s.wantText, out)
		}
	}
	if got := l.summary().Steps; got != int64(len(steps)) {
		t.Fatalf("histogram has %d steps, want %d", got, len(steps))
	}
}

// TestLatenessSummaryLevel: the summary at shutdown is INFO while the
// mock kept time, WARN when its p99 was over warnLate or it re-anchored
// its schedule, and absent without steps.
func TestLatenessSummaryLevel(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Lateness
		want string // level, "" for no line
	}{
		{"no steps", Lateness{}, ""},
		{"on time", Lateness{Steps: 100, P50: 50 * time.Microsecond, P99: time.Millisecond, Max: 3 * time.Millisecond}, "INFO"},
		{"late p99", Lateness{Steps: 100, P50: time.Millisecond, P99: 20 * time.Millisecond, Max: 30 * time.Millisecond}, "WARN"},
		{"resynced", Lateness{Steps: 100, P99: time.Millisecond, Max: 150 * time.Millisecond, Resyncs: 1}, "WARN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log, buf := testLogger()
			logSummary(log, tc.l, 4)
			out := buf.String()
			if tc.want == "" {
				if out != "" {
					t.Fatalf("logged %q, want nothing", out)
				}
				return
			}
			if !strings.Contains(out, "level="+tc.want) || !strings.Contains(out, `msg="mock step lateness"`) ||
				!strings.Contains(out, "replicas=4") {
				t.Fatalf("logged %q, want one %s summary over 4 replicas", out, tc.want)
			}
		})
	}
}

// TestFleetLogsLatenessOnce: a fleet's replicas share one late-step
// warning limit (the line names the replica) and the fleet logs a single
// lateness summary at Close, not one per replica.
func TestFleetLogsLatenessOnce(t *testing.T) {
	log, buf := testLogger()
	opts := fastOptions()
	opts.Logger = log
	f, err := StartFleet(context.Background(), FleetConfig{Replicas: 3, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	// The drivers are idle: only these two records warn.
	for _, i := range []int{1, 2} {
		s := f.Servers()[i]
		s.drv.late.record(20*time.Millisecond, s.drv.log)
	}
	for _, u := range f.URLs() {
		if code, _, b := post(t, u+"/v1/completions", `{"prompt":"a","max_tokens":4}`); code != 200 {
			t.Fatalf("%s: %d %s", u, code, b)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, `msg="mock step ran late"`); n != 1 || !strings.Contains(out, "replica=1") {
		t.Fatalf("%d late-step warnings, want 1 naming replica 1:\n%s", n, out)
	}
	if n := strings.Count(out, `msg="mock step lateness"`); n != 1 || !strings.Contains(out, "replicas=3") {
		t.Fatalf("%d lateness summaries, want 1 over 3 replicas:\n%s", n, out)
	}
}
