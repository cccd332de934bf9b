package cli

import (
	"bufio"
	"net/url"
	"os"
	"strings"
)

// maxTargetsFile bounds a --targets-file (1 MiB).
const maxTargetsFile = 1 << 20

// readTargetsFile reads --targets-file: one base URL per line; blank
// lines and lines starting with # are skipped. A bad line is an error
// naming the file, line and value.
func readTargetsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("--targets-file: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxTargetsFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		u, err := url.Parse(line)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("--targets-file %s:%d: target %q: want a base URL such as http://host:8000", path, n, line)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("--targets-file %s: %v", path, err)
	}
	if len(out) == 0 {
		return nil, usagef("--targets-file %s: no targets", path)
	}
	return out, nil
}

// allTargets is --target followed by the targets of --targets-file.
func (m *fleetFlags) allTargets(targets []string) ([]string, error) {
	if m.TargetsFile == "" {
		return targets, nil
	}
	more, err := readTargetsFile(m.TargetsFile)
	if err != nil {
		return nil, err
	}
	return append(append([]string{}, targets...), more...), nil
}
