package cli

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// pdFlags are the prefill/decode disaggregation flags of replay.
type pdFlags struct {
	prefill     string
	prefillArgs policies.Args
	ratio       string
	targetRoles []string
	threshold   int
	protocol    string
}

func init() {
	flagNames["Spec.PD.PrefillRouter"] = "--pd-prefill-policy"
	flagNames["Spec.PD.PrefillArgs"] = "--pd-prefill-param"
	flagNames["Spec.PD.Roles"] = "--pd-ratio / --target-role"
	flagNames["Spec.PD.Protocol"] = "--pd-protocol"
}

func (p *pdFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&p.ratio, "pd-ratio", "", "disaggregate prefill and decode on the --mock or --sim fleet split P:D "+
		"(e.g. 1:3: the first P backends prefill, the others decode)")
	fs.StringArrayVar(&p.targetRoles, "target-role", nil, "disaggregate prefill and decode; URL=ROLE gives a --target "+
		"its role: prefill, decode or both (repeatable; targets without one decode, as llm-d's decode filter takes unlabelled pods)")
	fs.StringVar(&p.prefill, "pd-prefill-policy", "", "router picking the prefill backend (default: --policy, which picks the decode backend)")
	flags.BindPolicyArgs(fs, &p.prefillArgs, policies.KindRouter, "pd-prefill-param", "prefill router parameter `k=v` (repeatable)")
	fs.IntVar(&p.threshold, "pd-threshold", 0, "disaggregate a request only when its prompt tokens not predicted cached on "+
		"the decode pick reach this many (llm-d's threshold; 0: every request)")
	fs.StringVar(&p.protocol, "pd-protocol", results.PDTwoStep, "how the client chains prefill and decode on live backends: "+
		"two-step (vLLM's disaggregated proxy) or sidecar (llm-d's "+"x-prefiller-host-port header)")
}

// backends gives rs the backends of mf and targets (fleetFlags.backends),
// then the P/D roles of the flags (apply). stop ends an in-process fleet;
// when err is not nil the fleet is stopped already.
func (p *pdFlags) backends(ctx context.Context, rs *runSpec, mf *fleetFlags, targets []string) (stop func(), err error) {
	stop, err = mf.backends(ctx, rs, targets)
	if err != nil {
		return nil, err
	}
	if err := p.apply(ctx, rs, mf.TargetsFile); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// apply sets rs.PD from the flags once rs's backends are known; P/D is
// on when --pd-ratio, --target-role or a targets file's role= is given.
func (p *pdFlags) apply(ctx context.Context, rs *runSpec, targetsFile string) error {
	fileRoles, err := readTargetRoles(targetsFile)
	if err != nil {
		return err
	}
	if p.ratio == "" && len(p.targetRoles) == 0 && len(fileRoles) == 0 {
		return nil
	}
	var roles []string
	var roleOf func(string) string
	switch {
	case rs.Sim > 0 || rs.Mode == results.ModeMock:
		if p.ratio == "" || len(p.targetRoles) > 0 {
			return usagef("--pd-ratio P:D gives the roles of a --mock or --sim fleet (--target-role is for --target)")
		}
		n := rs.Sim
		if n == 0 {
			n = len(rs.Backends)
		}
		if roles, err = bench.RolesByRatio(p.ratio, n); err != nil {
			return usagef("--pd-ratio: %v", err)
		}
	default:
		if p.ratio != "" {
			return usagef("--pd-ratio applies to --mock and --sim; give --target-role URL=ROLE for --target")
		}
		flags, dns, err := splitDNSRoles(p.targetRoles)
		if err != nil {
			return err
		}
		if fileRoles == nil {
			fileRoles = map[string]string{}
		}
		if err := addDNSRoles(ctx, fileRoles, dns); err != nil {
			return err
		}
		if roles, err = targetRoles(rs.Backends, flags, fileRoles); err != nil {
			return err
		}
		roleOf = discoveredRoles(rs.Discover, dns)
	}
	rs.PD = &bench.PD{PrefillRouter: p.prefill, PrefillArgs: p.prefillArgs, Roles: roles, Threshold: p.threshold, Protocol: p.protocol,
		RoleOf: roleOf}
	if p.threshold < 0 {
		return usagef("--pd-threshold %d: want ≥ 0", p.threshold)
	}
	return nil
}

// targetRoles gives every target its role: --target-role, else the
// targets file's role=, else decode.
func targetRoles(backends, flags []string, file map[string]string) ([]string, error) {
	given := map[string]string{}
	for u, r := range file {
		given[u] = r
	}
	for _, f := range flags {
		u, r, ok := strings.Cut(f, "=")
		if !ok || !validRole(r) {
			return nil, usagef("--target-role %q: want URL=ROLE with ROLE prefill, decode or both", f)
		}
		given[strings.TrimRight(u, "/")] = r
	}
	roles := make([]string, len(backends))
	for i, b := range backends {
		roles[i] = replay.RoleDecode
		if r, ok := given[strings.TrimRight(b, "/")]; ok {
			roles[i] = r
			delete(given, strings.TrimRight(b, "/"))
		}
	}
	for u := range given {
		return nil, usagef("--target-role %s: not one of the targets", u)
	}
	return roles, nil
}

func validRole(r string) bool {
	return r == replay.RolePrefill || r == replay.RoleDecode || r == replay.RoleBoth
}

// readTargetRoles reads the role= fields of a targets file ("URL
// role=prefill" lines), by URL; nil without a file.
func readTargetRoles(path string) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("--targets-file: %v", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxTargetsFile)
	for n := 1; sc.Scan(); n++ {
		u, role, err := targetLine(sc.Text())
		if err != nil {
			return nil, usagef("--targets-file %s:%d: %v", path, n, err)
		}
		if role != "" {
			out[strings.TrimRight(u, "/")] = role
		}
	}
	return out, nil
}

// targetLine splits a targets file line into its URL and its optional
// role= field ("" for blank and comment lines).
func targetLine(line string) (string, string, error) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return "", "", nil
	}
	fields := strings.Fields(line)
	role := ""
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if ok && k == costField {
			continue // read by targetPrice
		}
		if !ok || k != "role" || !validRole(v) {
			return "", "", fmt.Errorf("field %q: want role=prefill, role=decode, role=both or %s=X", f, costField)
		}
		role = v
	}
	return fields[0], role, nil
}

// splitDNSRoles separates the --target-role flags naming a dns+http://
// target (a headless Service: a role for every address it resolves to,
// now and when the fleet is resolved again) from the others.
func splitDNSRoles(flags []string) ([]string, map[string]string, error) {
	var plain []string
	dns := map[string]string{}
	for _, f := range flags {
		u, r, ok := strings.Cut(f, "=")
		if !strings.HasPrefix(u, dnsScheme) {
			plain = append(plain, f)
			continue
		}
		if !ok || !validRole(r) {
			return nil, nil, usagef("--target-role %q: want URL=ROLE with ROLE prefill, decode or both", f)
		}
		dns[u] = r
	}
	return plain, dns, nil
}

// addDNSRoles resolves every dns+http:// target of dns and gives its
// addresses its role in roles.
func addDNSRoles(ctx context.Context, roles map[string]string, dns map[string]string) error {
	for t, r := range dns {
		urls, err := expandDNS(ctx, []string{t})
		if err != nil {
			return err
		}
		for _, u := range urls {
			roles[strings.TrimRight(u, "/")] = r
		}
	}
	return nil
}

// discoveredRoles returns the role of a backend that joins mid-run: the
// role of the dns+http:// target it was found under, read from the
// discovery's own resolutions (which it then wraps); nil without
// discovery or dns roles.
func discoveredRoles(d *replay.Discovery, dns map[string]string) func(string) string {
	if d == nil || len(dns) == 0 {
		return nil
	}
	var mu sync.Mutex
	found := map[string]string{}
	inner := d.Resolve
	d.Resolve = func(ctx context.Context) ([]string, error) {
		next := map[string]string{}
		if err := addDNSRoles(ctx, next, dns); err == nil {
			mu.Lock()
			maps.Copy(found, next)
			mu.Unlock()
		}
		return inner(ctx)
	}
	return func(url string) string {
		mu.Lock()
		defer mu.Unlock()
		if r, ok := found[strings.TrimRight(url, "/")]; ok {
			return r
		}
		return replay.RoleDecode
	}
}
