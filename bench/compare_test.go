package bench

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/traces"
)

// TestCompareJobs: automatic Jobs is every router on mock fleets,
// GOMAXPROCS with Sim and one with Targets; an explicit value wins but
// never exceeds the routers.
func TestCompareJobs(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec CompareSpec
		want int
	}{
		{"mock", CompareSpec{}, 11},
		{"target", CompareSpec{Targets: []string{"http://127.0.0.1:1"}}, 1},
		{"sim", CompareSpec{Base: Spec{Sim: 2}}, min(11, runtime.GOMAXPROCS(0))},
		{"explicit", CompareSpec{Jobs: 3}, 3},
		{"explicit above the routers", CompareSpec{Jobs: 30}, 11},
	} {
		c := &comparer{spec: tc.spec}
		if got := c.jobs(11); got != tc.want {
			t.Errorf("%s: %d jobs, want %d", tc.name, got, tc.want)
		}
	}
}

// TestCompareErrors: a bad CompareSpec value is a UsageError naming
// its field, before any Run.
func TestCompareErrors(t *testing.T) {
	for _, tc := range []struct {
		edit  func(*CompareSpec)
		field string
	}{
		{func(s *CompareSpec) { s.Routers = []string{"random", "no-such-router"} }, "CompareSpec.Routers"},
		{func(s *CompareSpec) { s.Jobs = -1 }, "CompareSpec.Jobs"},
		{func(s *CompareSpec) { s.Seeds = -1 }, "CompareSpec.Seeds"},
		{func(s *CompareSpec) { s.Targets = []string{"http://127.0.0.1:1"} }, "CompareSpec.Targets"},
		{func(s *CompareSpec) { s.Base.Sim, s.Targets = 0, []string{"ftp://x"} }, "CompareSpec.Targets"},
		{func(s *CompareSpec) { s.Base.Sim, s.Targets, s.Jobs = 0, []string{"http://127.0.0.1:1"}, 2 }, "CompareSpec.Jobs"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			s := CompareSpec{Base: simSpec("", ""), Routers: []string{"random"}, Out: t.TempDir()}
			tc.edit(&s)
			res, err := Compare(context.Background(), s)
			var ue UsageError
			if !asUsage(err, &ue) || ue.Field != tc.field || len(res.Runs) != 0 {
				t.Errorf("err %v (field %q), %d runs; want a UsageError on %s", err, ue.Field, len(res.Runs), tc.field)
			}
		})
	}
}

// TestCompareSim: two routers in virtual time, side by side, give a
// Summary each in order, a report and, over two seeds, a verdict.
func TestCompareSim(t *testing.T) {
	dir := t.TempDir()
	s := CompareSpec{Base: simSpec("", ""), Routers: []string{"round-robin", "prefix-cache"}, Out: dir, Seeds: 2}
	res, err := Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || res.Runs[0].Header.Policy != "round-robin" || res.Runs[1].Header.Policy != "prefix-cache" {
		t.Fatalf("runs %v, want round-robin then prefix-cache", res.Runs)
	}
	if res.Verdict == nil || res.Report == "" {
		t.Errorf("verdict %v, report %q; want both", res.Verdict, res.Report)
	}
}

// TestCompareRedo plays a busy machine with a stand-in for
// metrics.Distortion over small simulated runs: when a run alone is
// distorted too, Compare stops retrying and says so; when it is honest,
// the other flagged runs go again at half the concurrency.
func TestCompareRedo(t *testing.T) {
	names := []string{"random", "round-robin", "least-request", "prefix-cache"}
	for _, tc := range []struct {
		name string
		// flag reports whether a Summary counts as distorted; first holds
		// the Summaries of the side-by-side runs.
		flag func(first map[*metrics.Summary]bool, s *metrics.Summary) bool
		want string
	}{
		{"machine too busy", func(map[*metrics.Summary]bool, *metrics.Summary) bool { return true },
			"bench: random alone was distorted too"},
		{"side by side was the cause", func(first map[*metrics.Summary]bool, s *metrics.Summary) bool { return first[s] },
			"bench: random alone was honest; running the other 3 again, 2 at a time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr lockedBuffer
			base := simSpec("", "")
			base.Sim = 1
			base.Workload.WorkloadArgs, base.Workload.Rate = traces.Params{{Name: "requests", Value: traces.ParamInt(20)}}, 20
			ctx := context.Background()
			c, err := newComparer(ctx, CompareSpec{Base: base, Routers: names, Out: t.TempDir(), ErrOut: &stderr})
			if err != nil {
				t.Fatal(err)
			}
			sums, err := c.batch(ctx, c.spec, names, 4)
			if err != nil {
				t.Fatal(err)
			}
			first := map[*metrics.Summary]bool{}
			for _, s := range sums {
				first[s] = true
			}
			c.distortion = func(s *metrics.Summary) string {
				if tc.flag(first, s) {
					return "late"
				}
				return ""
			}
			if err := c.redo(ctx, c.spec, sums, 4); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr.String())
			}
			for i, s := range sums {
				if s == nil || s.OK != 20 {
					t.Errorf("%s: summary %v", names[i], s)
				}
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for Runs side by side.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
