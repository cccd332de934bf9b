package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
)

func TestReadTargetsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, prices, err := readTargetsFile(write("ok", "# fleet\nhttp://a:8000 cost_per_hour=2.5\n\n  https://b/v1  \n"))
	if err != nil || strings.Join(got, ",") != "http://a:8000,https://b/v1" || len(prices) != 1 || prices["http://a:8000"] != 2.5 {
		t.Errorf("got %v, prices %v, %v", got, prices, err)
	}
	for name, tc := range map[string]struct{ body, want string }{
		"bad":      {"http://a:8000\nftp://x\n", "bad:2: target \"ftp://x\""},
		"empty":    {"# nothing\n", "no targets"},
		"negative": {"http://a:8000 cost_per_hour=-1\n", "negative:1: field cost_per_hour: \"-1\": negative price"},
		"nan":      {"http://a:8000\nhttp://b:8000 cost_per_hour=two\n", "nan:2: field cost_per_hour: \"two\": want a price"},
	} {
		_, _, err := readTargetsFile(write(name, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--targets-file") {
			t.Errorf("%s: error %v, want one naming the flag and %q", name, err, tc.want)
		}
	}
	if _, _, err := readTargetsFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file read")
	}
}

// TestReplayTargetsFile replays against a mock fleet listed in a file.
func TestReplayTargetsFile(t *testing.T) {
	f := startTestFleet(t, "")
	dir := t.TempDir()
	list := filepath.Join(dir, "targets")
	if err := os.WriteFile(list, []byte(strings.Join(f.URLs(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.jsonl")
	if code, _, stderr := runCLI(t, "replay", "--targets-file", list, "--workload", "shared-prefix", "--max-requests", "8",
		"--rate", "40", "--policy", "round-robin", "--out", out); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	sum, err := metrics.Summarize(out, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 8 || strings.Join(sum.Header.Backends, ",") != strings.Join(f.URLs(), ",") {
		t.Errorf("%d ok, backends %v; want 8 over %v", sum.OK, sum.Header.Backends, f.URLs())
	}
}

func TestExpandDNS(t *testing.T) {
	old := lookupHost
	defer func() { lookupHost = old }()
	lookupHost = func(_ context.Context, name string) ([]string, error) {
		if name == "vllm-headless.default.svc" {
			return []string{"10.0.0.7", "10.0.0.3", "fd00::1"}, nil
		}
		return nil, fmt.Errorf("no such host %s", name)
	}
	got, err := expandDNS(context.Background(), []string{"http://a:1", "dns+http://vllm-headless.default.svc:8000"})
	want := "http://a:1,http://10.0.0.3:8000,http://10.0.0.7:8000,http://[fd00::1]:8000"
	if err != nil || strings.Join(got, ",") != want {
		t.Errorf("got %v, %v; want %s", got, err, want)
	}
	for _, bad := range []string{"dns+http://nowhere:8000", "dns+http://vllm-headless.default.svc", "dns+ftp://x:1"} {
		if _, err := expandDNS(context.Background(), []string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: error %v, want one naming it", bad, err)
		}
	}
}

// TestDiscoveryReresolves: a dns+http:// target is re-resolved through
// the same resolver during the run, static targets kept; without a DNS
// target or with --resolve-every 0 the fleet is fixed.
func TestDiscoveryReresolves(t *testing.T) {
	old := lookupHost
	defer func() { lookupHost = old }()
	answers := [][]string{{"10.0.0.3"}, {"10.0.0.7", "10.0.0.3"}}
	calls := 0
	lookupHost = func(context.Context, string) ([]string, error) {
		a := answers[min(calls, len(answers)-1)]
		calls++
		return a, nil
	}
	tests := []struct {
		name    string
		targets []string
		every   time.Duration
		want    []string // each resolution after the first; nil: no discovery
	}{
		{"dns target", []string{"http://a:1", "dns+http://svc:8000"}, time.Second,
			[]string{"http://a:1,http://10.0.0.3:8000,http://10.0.0.7:8000"}},
		{"resolve once", []string{"dns+http://svc:8000"}, 0, nil},
		{"no dns target", []string{"http://a:1"}, time.Second, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			m := &fleetFlags{ResolveEvery: tc.every}
			if _, err := m.allTargets(context.Background(), tc.targets); err != nil {
				t.Fatal(err)
			}
			d := m.discovery()
			if (d == nil) != (tc.want == nil) {
				t.Fatalf("discovery = %v, want one: %v", d, tc.want != nil)
			}
			for _, w := range tc.want {
				got, err := d.Resolve(context.Background())
				if err != nil || strings.Join(got, ",") != w {
					t.Errorf("re-resolved %v, %v; want %s", got, err, w)
				}
			}
			if d != nil && d.Every != tc.every {
				t.Errorf("Every = %v, want %v", d.Every, tc.every)
			}
		})
	}
}
