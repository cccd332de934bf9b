package cli

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
)

// maxTargetsFile bounds a --targets-file (1 MiB).
const maxTargetsFile = 1 << 20

// readTargetsFile reads --targets-file: one base URL per line; blank
// lines and lines starting with # are skipped. prices are the lines'
// cost_per_hour= fields in $/hour, by URL (nil when none has one). A bad
// line is an error naming the file, line and value or field.
func readTargetsFile(path string) (out []string, prices map[string]float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, usagef("--targets-file: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxTargetsFile)
	for n := 1; sc.Scan(); n++ {
		line, _, err := targetLine(sc.Text())
		if err != nil {
			return nil, nil, usagef("--targets-file %s:%d: %v", path, n, err)
		}
		if line == "" {
			continue
		}
		u, err := url.Parse(strings.TrimPrefix(line, dnsScheme))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, nil, usagef("--targets-file %s:%d: target %q: want a base URL such as http://host:8000", path, n, line)
		}
		_, price, ok, err := targetPrice(sc.Text())
		if err != nil {
			return nil, nil, usagef("--targets-file %s:%d: %v", path, n, err)
		}
		if ok {
			if prices == nil {
				prices = map[string]float64{}
			}
			prices[line] = price
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, usagef("--targets-file %s: %v", path, err)
	}
	if len(out) == 0 {
		return nil, nil, usagef("--targets-file %s: no targets", path)
	}
	return out, prices, nil
}

// allTargets is --target followed by the targets of --targets-file,
// with dns+http:// targets resolved to their addresses.
func (m *fleetFlags) allTargets(ctx context.Context, targets []string) ([]string, error) {
	if m.TargetsFile != "" {
		more, prices, err := readTargetsFile(m.TargetsFile)
		if err != nil {
			return nil, err
		}
		targets = append(append([]string{}, targets...), more...)
		if m.price, err = m.filePrice(ctx, prices); err != nil {
			return nil, err
		}
	}
	if slices.ContainsFunc(targets, func(t string) bool { return strings.HasPrefix(t, dnsScheme) }) {
		m.dnsTargets = targets
	}
	return expandDNS(ctx, targets)
}

// discovery re-resolves the dns+http:// targets every --resolve-every
// during the run (nil without such a target, or with --resolve-every 0).
func (m *fleetFlags) discovery() *replay.Discovery {
	if len(m.dnsTargets) == 0 || m.ResolveEvery <= 0 {
		return nil
	}
	raw := m.dnsTargets
	return &replay.Discovery{Every: m.ResolveEvery, Resolve: func(ctx context.Context) ([]string, error) {
		return expandDNS(ctx, raw)
	}}
}

// dnsScheme prefixes a target resolved through DNS to every address of
// its name (a headless Kubernetes Service lists one per pod).
const dnsScheme = "dns+"

// lookupHost resolves a name (net.DefaultResolver; tests replace it).
var lookupHost = func(ctx context.Context, name string) ([]string, error) {
	return net.DefaultResolver.LookupHost(ctx, name)
}

// expandDNS replaces every dns+http://name:port target by one
// http://address:port target per address of name, sorted; other targets
// stay as they are. A name that does not resolve is an error naming it.
// The run re-resolves them every --resolve-every (see discovery).
func expandDNS(ctx context.Context, targets []string) ([]string, error) {
	var out []string
	for _, t := range targets {
		rest, ok := strings.CutPrefix(t, dnsScheme)
		if !ok {
			out = append(out, t)
			continue
		}
		u, err := url.Parse(rest)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Port() == "" {
			return nil, usagef("--target %q: want dns+http://name:port", t)
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		addrs, err := lookupHost(lctx, u.Hostname())
		cancel()
		if err != nil || len(addrs) == 0 {
			return nil, fmt.Errorf("--target %s: resolve %s: %v", t, u.Hostname(), err)
		}
		slices.Sort(addrs)
		for _, a := range addrs {
			v := *u
			v.Host = net.JoinHostPort(a, u.Port())
			out = append(out, v.String())
		}
	}
	return out, nil
}

// filePrice prices the targets file's backends from their cost_per_hour=
// fields, resolving each priced dns+http:// line to its addresses.
func (m *fleetFlags) filePrice(ctx context.Context, prices map[string]float64) (metrics.Price, error) {
	resolved := map[string][]string{}
	for t := range prices {
		if !strings.HasPrefix(t, dnsScheme) {
			continue
		}
		addrs, err := expandDNS(ctx, []string{t})
		if err != nil {
			return metrics.Price{}, err
		}
		resolved[t] = addrs
	}
	return targetsPrice(m.TargetsFile, prices, resolved), nil
}
