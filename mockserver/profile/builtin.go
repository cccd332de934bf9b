package profile

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/tracebench/tracebench/mockserver/engine"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// DefaultName is the profile used when none is given.
const DefaultName = "default"

// defaults returns the fields of the default profile, which fields a
// profile file leaves out inherit (built from the engine's defaults, so
// the two cannot drift).
func defaults() Profile {
	return *FromConfig(DefaultName, engine.DefaultConfig())
}

// Names returns the built-in profile names, sorted.
func Names() []string {
	ents, _ := builtinFS.ReadDir("builtin")
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Builtin returns the built-in profile called name.
func Builtin(name string) (*Profile, error) {
	p, ok := builtin(name)
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (built in: %s)", name, strings.Join(Names(), ", "))
	}
	return p, nil
}

// BuiltinConfig returns the engine configuration of the built-in profile
// called name.
func BuiltinConfig(name string) (engine.Config, error) {
	p, err := Builtin(name)
	if err != nil {
		return engine.Config{}, err
	}
	return p.Config(), nil
}

// BuiltinYAML returns the embedded file of the built-in profile name.
func BuiltinYAML(name string) ([]byte, bool) {
	data, err := builtinFS.ReadFile(path.Join("builtin", name+".yaml"))
	return data, err == nil
}

func builtin(name string) (*Profile, bool) {
	if strings.ContainsAny(name, `/\`) {
		return nil, false
	}
	data, ok := BuiltinYAML(name)
	if !ok {
		return nil, false
	}
	p, err := Parse(data, "builtin/"+name+".yaml")
	if err != nil {
		return nil, false // a test parses every built-in profile
	}
	return p, true
}
