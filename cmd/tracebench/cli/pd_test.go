package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// TestReplayPDEndToEnd disaggregates prefill and decode from the command
// line on the in-process mock fleet over loopback in both live protocols
// and in virtual time: every request is prefilled on a prefill backend
// and decoded on a decode backend, and the TTFT split is known.
func TestReplayPDEndToEnd(t *testing.T) {
	base := []string{"replay", "--workload", "mixed", "-p", "requests=30", "--rate", "20", "--policy", "least-request",
		"--pd-ratio", "1:2", "--pd-prefill-policy", "round-robin"}
	tests := []struct {
		name string
		args []string
	}{
		{"two-step over the mock", []string{"--mock", "3", "--mock-time-scale", "0.05"}},
		{"sidecar over the mock", []string{"--mock", "3", "--mock-time-scale", "0.05", "--pd-protocol", "sidecar"}},
		{"simulated", []string{"--sim", "3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, s := simReplay(t, append(append([]string{}, base...), tt.args...)...)
			if s.PD == nil || s.PD.Disaggregated != s.Requests || s.PD.SplitUnknown != 0 || s.PD.Prefill.Count != s.Requests {
				t.Fatalf("P/D summary %+v of %d requests: want every request disaggregated with its split", s.PD, s.Requests)
			}
			if len(s.PD.Roles) != 2 || s.PD.Roles[0].Phases != s.Requests || s.PD.Roles[1].Phases != s.Requests {
				t.Errorf("roles %+v: want one prefill and one decode phase per request", s.PD.Roles)
			}
			eachResult(t, openResults(t, out), func(r *results.Result) {
				if r.PD == nil || r.PD.Backend != 0 || r.Backend == 0 || !r.PD.TransferKnown || r.PD.Transfer <= 0 {
					t.Errorf("result %s: backend %d, prefill %+v; want prefill on 0, decode on 1 or 2, a transfer", r.ID, r.Backend, r.PD)
				}
				if pre, _ := r.PrefillTime(); r.TTFT() < pre+r.PD.Transfer {
					t.Errorf("result %s: TTFT %v below prefill %v + transfer %v", r.ID, r.TTFT(), pre, r.PD.Transfer)
				}
			})
		})
	}
}

// TestReplayPDThreshold: with a threshold above every prompt, the decode
// backends serve every request alone.
func TestReplayPDThreshold(t *testing.T) {
	_, s := simReplay(t, "replay", "--workload", "mixed", "-p", "requests=20", "--sim", "2", "--pd-ratio", "1:1",
		"--pd-threshold", "1000000")
	if s.PD == nil || s.PD.Disaggregated != 0 || s.PD.DecodeOnly != s.Requests {
		t.Fatalf("P/D summary %+v: want every request decode-only", s.PD)
	}
}

// TestReplayPDUsageErrors: runs without a prefill or a decode backend and
// bad P/D flags are refused by name.
func TestReplayPDUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--sim", "2", "--pd-ratio", "0:2"}, "without any prefill backend"},
		{[]string{"--sim", "2", "--pd-ratio", "2:0"}, "without any decode backend"},
		{[]string{"--sim", "2", "--pd-ratio", "1:2"}, "the fleet has 2"},
		{[]string{"--sim", "2", "--pd-ratio", "x"}, "--pd-ratio"},
		{[]string{"--sim", "2", "--pd-ratio", "1:1", "--pd-protocol", "sidecar"}, "--pd-protocol"},
		{[]string{"--sim", "2", "--pd-ratio", "1:1", "--pd-prefill-policy", "nope"}, "--pd-prefill-policy"},
		{[]string{"--sim", "2", "--pd-ratio", "1:1", "--pd-threshold", "-1"}, "--pd-threshold"},
		{[]string{"--sim", "2", "--pd-ratio", "1:1", "--pd-prefill-param", "block_size"}, "--pd-prefill-param"},
		{[]string{"--sim", "2", "--pd-ratio", "1:1", "--pd-prefill-param", "nope=1"}, "--pd-prefill-param"},
		{[]string{"--sim", "2", "--pd-ratio", "1:1", "--pd-prefill-policy", "prefix-cache", "--pd-prefill-param", "block_number=many"},
			"--pd-prefill-param"},
		{[]string{"--sim", "2", "--target-role", "http://x:1=prefill"}, "--target-role"},
		{[]string{"--target", "http://127.0.0.1:1", "--target-role", "http://127.0.0.1:1=prefill"}, "without any decode backend"},
		{[]string{"--target", "http://127.0.0.1:1", "--target-role", "http://127.0.0.1:1=boss"}, "--target-role"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		args := append([]string{"replay", "--workload", "mixed", "-p", "requests=5", "--out", t.TempDir() + "/r.jsonl"}, tt.args...)
		if code := Run(args, &out, &errb); code == ExitOK || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

// TestTargetLine reads a targets file line's URL and role.
func TestTargetLine(t *testing.T) {
	tests := []struct{ line, url, role, err string }{
		{"http://a:1", "http://a:1", "", ""},
		{"  http://a:1   role=prefill ", "http://a:1", "prefill", ""},
		{"# comment", "", "", ""},
		{"http://a:1 role=boss", "", "", "role=prefill"},
		{"http://a:1 weight=2", "", "", "role=prefill"},
		{"http://a:1 role=decode cost_per_hour=2.5", "http://a:1", "decode", ""},
	}
	for _, tt := range tests {
		u, r, err := targetLine(tt.line)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one naming %s", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil || u != tt.url || r != tt.role {
			t.Errorf("%q: %q %q %v; want %q %q", tt.line, u, r, err, tt.url, tt.role)
		}
	}
}

// FuzzTargetLine: any line gives a URL and a valid role, or an error.
func FuzzTargetLine(f *testing.F) {
	for _, s := range []string{"http://a:1", "http://a:1 role=decode", "# x", "", "a role=", "a b c", "\t role=both"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		u, r, err := targetLine(line)
		if err == nil && r != "" && (!validRole(r) || u == "") {
			t.Fatalf("%q: url %q role %q", line, u, r)
		}
	})
}

// A --target-role naming a dns+http:// target gives its role to every
// address the name resolves to, at the start and when a re-resolution
// finds a new one (a backend joining mid-run).
func TestDNSTargetRoles(t *testing.T) {
	old := lookupHost
	defer func() { lookupHost = old }()
	addrs := map[string][]string{"prefill": {"10.0.0.1"}, "decode": {"10.0.0.2", "10.0.0.3"}}
	lookupHost = func(_ context.Context, name string) ([]string, error) { return addrs[name], nil }
	ctx := context.Background()
	backends, err := expandDNS(ctx, []string{"dns+http://prefill:8000", "dns+http://decode:8000"})
	if err != nil {
		t.Fatal(err)
	}
	plain, dns, err := splitDNSRoles([]string{"dns+http://prefill:8000=prefill", "http://10.0.0.3:8000=both"})
	if err != nil {
		t.Fatal(err)
	}
	given := map[string]string{}
	if err := addDNSRoles(ctx, given, dns); err != nil {
		t.Fatal(err)
	}
	roles, err := targetRoles(backends, plain, given)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"prefill", "decode", "both"}; strings.Join(roles, ",") != strings.Join(want, ",") {
		t.Errorf("roles %v, want %v", roles, want)
	}
	d := &replay.Discovery{Resolve: func(ctx context.Context) ([]string, error) {
		return expandDNS(ctx, []string{"dns+http://prefill:8000", "dns+http://decode:8000"})
	}}
	roleOf := discoveredRoles(d, dns)
	addrs["prefill"] = append(addrs["prefill"], "10.0.0.9")
	if _, err := d.Resolve(ctx); err != nil {
		t.Fatal(err)
	}
	if r := roleOf("http://10.0.0.9:8000"); r != "prefill" {
		t.Errorf("joined prefill address: role %q, want prefill", r)
	}
	if r := roleOf("http://10.0.0.7:8000"); r != "decode" {
		t.Errorf("unknown address: role %q, want decode (as unlabelled pods)", r)
	}
}
