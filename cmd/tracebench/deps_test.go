package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tracebench/tracebench/"

// allowed lists, for each top-level package, which of our packages it may
// import (docs/architecture.md, "Layout": traces ← results ← client ← replay,
// traces ← policies ← replay ← sim, replay ← metrics ← verdict ← reports ←
// bench ← plan, predict, probe ← cmd, with reports/plots ← reports/html ←
// reports inside reports, and search ← bench; mockserver stands
// alone but for the tokenizer, the KV event wire format, the server
// dialects and the step latency formula; only sim and bench, among the
// client's packages, import the mock engine, sim to simulate it and bench
// to start the in-process mock fleet; predict imports calibrate to start a
// prediction from the slots an earlier run left; kvevents, dialect, search
// and the internal packages are leaves, but for testfixtures, which the
// tests share and which reads results files).
var allowed = map[string][]string{
	"dialect":             {"dialect"},
	"internal/pace":       {"internal/pace"},
	"internal/blockgroup": {"internal/blockgroup"},
	"internal/textfmt":    {"internal/textfmt"},
	"internal/steplat":    {"internal/steplat"},
	"internal/fakesse":    {"internal/fakesse"},
	"internal/minheap":    {"internal/minheap"},
	// The tests' shared fixtures and results-file readers.
	"internal/testfixtures": {"internal/testfixtures", "results", "traces", "dialect", "internal/minheap"},
	"deploy/kubernetes":     {"deploy/kubernetes"},
	"traces":                {"traces", "internal/minheap"},
	"kvevents":              {"kvevents", "internal/minheap"},
	"policies":              {"traces", "policies", "kvevents", "internal/blockgroup", "internal/minheap"},
	"results":               {"traces", "results", "dialect", "internal/minheap"},
	"client":                {"traces", "results", "client", "dialect", "internal/minheap"},
	"replay":                {"traces", "policies", "replay", "results", "client", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/minheap"},
	"sim":                   {"traces", "policies", "replay", "results", "client", "sim", "mockserver/engine", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat", "internal/minheap"},
	"metrics":               {"traces", "policies", "replay", "results", "client", "metrics", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/minheap"},
	"verdict":               {"traces", "policies", "replay", "results", "client", "metrics", "verdict", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/minheap"},
	"reports/plots":         {"traces", "policies", "replay", "results", "client", "metrics", "verdict", "reports/plots", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/minheap"},
	"reports/html":          {"traces", "policies", "replay", "results", "client", "metrics", "verdict", "reports/plots", "reports/html", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/minheap"},
	"reports":               {"traces", "policies", "replay", "results", "client", "metrics", "verdict", "reports", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/minheap"},
	"mockserver":            {"mockserver", "traces/tokenizer", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat", "internal/minheap"},
	"mockserver/engine":     {"mockserver/engine", "traces/tokenizer", "internal/blockgroup", "internal/steplat", "internal/minheap"},
	"mockserver/profile":    {"mockserver/profile", "mockserver/engine", "traces/tokenizer", "internal/blockgroup", "internal/steplat", "internal/minheap"},
	"gateway":               {"gateway", "traces", "policies", "replay", "results", "client", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/minheap"},
	"bench":                 {"traces", "policies", "replay", "results", "client", "sim", "metrics", "verdict", "reports", "bench", "search", "mockserver", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/steplat", "internal/minheap"},
	"search":                {"search"},
	"plan":                  {"traces", "policies", "replay", "results", "client", "sim", "metrics", "verdict", "reports", "bench", "plan", "search", "mockserver", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/steplat", "internal/minheap"},
	"predict":               {"traces", "policies", "replay", "results", "client", "sim", "metrics", "verdict", "reports", "bench", "predict", "search", "calibrate", "mockserver", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/steplat", "internal/minheap"},
	"probe":                 {"traces", "policies", "replay", "results", "client", "sim", "metrics", "verdict", "reports", "bench", "probe", "search", "mockserver", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/textfmt", "internal/steplat", "internal/minheap"},
	"calibrate":             {"calibrate", "replay", "results", "client", "traces", "policies", "mockserver/engine", "mockserver/profile", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat", "internal/minheap"},
}

func TestImportDirection(t *testing.T) {
	for pkg, ok := range allowed {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
			if err != nil {
				t.Fatalf("go list %s: %v", pkg, err)
			}
			for _, dep := range strings.Fields(string(out)) {
				rel, ours := strings.CutPrefix(dep, module)
				if ours && !permitted(rel, ok) {
					t.Errorf("%s imports %s, against the dependency direction", pkg, rel)
				}
			}
		})
	}
}

// TestEveryPackageHasADirection: every package of the module but the
// command is, or lies below, a package that allowed lists, so a new
// package cannot escape TestImportDirection.
func TestEveryPackageHasADirection(t *testing.T) {
	out, err := exec.Command("go", "list", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := make([]string, 0, len(allowed))
	for p := range allowed {
		listed = append(listed, p)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel, _ := strings.CutPrefix(pkg, module)
		if rel == "cmd" || strings.HasPrefix(rel, "cmd/") {
			continue
		}
		if !permitted(rel, listed) {
			t.Errorf("package %s has no entry in allowed: add its permitted imports", rel)
		}
	}
}

// permitted reports whether rel is one of ok or below one of them.
func permitted(rel string, ok []string) bool {
	for _, p := range ok {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}
