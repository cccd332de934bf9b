package profile

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestBuiltinsResolveToGolden pins the engine configuration every
// built-in profile resolves to (times in nanoseconds), so that no edit of
// a YAML file, of the defaults a file inherits or of the mapping changes
// a built-in engine unnoticed. A new or changed profile: rerun with
// -update and review the diff.
func TestBuiltinsResolveToGolden(t *testing.T) {
	resolved := map[string]engine.Config{}
	for _, n := range Names() {
		p, err := Builtin(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		resolved[n] = p.Config()
	}
	got, err := json.MarshalIndent(resolved, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "builtin_resolved.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("built-in profiles resolve to other values than %s (rerun with -update and review the diff):\n%s",
			path, got)
	}
}
