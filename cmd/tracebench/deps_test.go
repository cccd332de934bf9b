package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tracebench/tracebench/"

// allowed lists, for each top-level package, which of our packages it may
// import (docs/architecture.md, "Layout": traces ← policies ← replay ← reports ← bench ← cmd;
// mockserver stands alone but for the tokenizer, the KV event wire
// format and the server dialects; bench starts the in-process mock
// fleet; kvevents, dialect and the internal packages are leaves).
var allowed = map[string][]string{
	"dialect":             {"dialect"},
	"internal/pace":       {"internal/pace"},
	"internal/blockgroup": {"internal/blockgroup"},
	"internal/steplat":    {"internal/steplat"},
	"traces":              {"traces"},
	"kvevents":            {"kvevents"},
	"policies":            {"traces", "policies", "kvevents", "internal/blockgroup"},
	"replay":              {"traces", "policies", "replay", "mockserver/engine", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat"},
	"reports":             {"traces", "policies", "replay", "reports", "mockserver/engine", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat"},
	"mockserver":          {"mockserver", "traces/tokenizer", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat"},
	"mockserver/engine":   {"mockserver/engine", "traces/tokenizer", "internal/blockgroup", "internal/steplat"},
	"mockserver/profile":  {"mockserver/profile", "mockserver/engine", "traces/tokenizer", "internal/blockgroup", "internal/steplat"},
	"gateway":             {"gateway", "traces", "policies", "replay", "mockserver/engine", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat"},
	"bench":               {"traces", "policies", "replay", "reports", "bench", "calibrate", "mockserver", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat"},
	"calibrate":           {"calibrate", "replay", "traces", "policies", "mockserver/engine", "mockserver/profile", "kvevents", "dialect", "internal/pace", "internal/blockgroup", "internal/steplat"},
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

// permitted reports whether rel is one of ok or below one of them.
func permitted(rel string, ok []string) bool {
	for _, p := range ok {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}
