package policies

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/tracebench/tracebench/traces"
	"gopkg.in/yaml.v3"
)

// PolicyConfig is the content of a --policy-config YAML file:
//
//	router:
//	  name: prefix-cache        # optional; checked against the registry
//	  preset: aibrix-code       # optional; same as params.preset
//	  params:
//	    block_size: 64
//	queue:
//	  name: vtc
//	  params: {w_out: 2}
//
// Both sections are optional. Parameter values are YAML scalars (64,
// 0.5, 20m, true), each read as the kind the policies of its section
// declare for its name (see ReadValue), keeping its text as written.
type PolicyConfig struct {
	Router, Queue PolicySection
}

// PolicySection is one policy of a PolicyConfig.
type PolicySection struct {
	// Name is the registry name, empty when the file does not give one.
	Name string
	// Params are the parameters by name (never nil).
	Params Params
}

// ParsePolicyConfig parses YAML data of a policy config; file names it in
// errors.
func ParsePolicyConfig(file string, data []byte) (PolicyConfig, error) {
	c := PolicyConfig{Router: PolicySection{Params: Params{}}, Queue: PolicySection{Params: Params{}}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return c, fmt.Errorf("policy config %s: %w", file, err)
	}
	if len(doc.Content) == 0 {
		return c, nil // empty file
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return c, cfgErr(file, top, "", "want a mapping with router: and queue:")
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		var sec *PolicySection
		kind := Kind(k.Value)
		switch kind {
		case KindRouter:
			sec = &c.Router
		case KindQueue:
			sec = &c.Queue
		default:
			return c, cfgErr(file, k, k.Value, "unknown key (want router or queue)")
		}
		if err := parseSection(file, kind, v, sec); err != nil {
			return c, err
		}
	}
	return c, nil
}

// parseSection reads one router: or queue: mapping and validates it.
func parseSection(file string, kind Kind, n *yaml.Node, sec *PolicySection) error {
	if n.Kind != yaml.MappingNode {
		return cfgErr(file, n, string(kind), "want a mapping with name, preset and params")
	}
	lines := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := string(kind) + "." + k.Value
		switch k.Value {
		case "name", "preset":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return cfgErr(file, v, field, "want a name")
			}
			if k.Value == "name" {
				sec.Name = v.Value
			} else {
				sec.Params["preset"], lines["preset"] = traces.ParamString(v.Value), v
			}
		case "params":
			if err := parseParams(file, kind, field, v, sec.Params, lines); err != nil {
				return err
			}
		default:
			return cfgErr(file, k, field, "unknown key (want name, preset or params)")
		}
	}
	if sec.Name == "" {
		return nil
	}
	return checkSection(file, kind, n, sec, lines)
}

// parseParams reads a params: mapping of scalars into dst, each as the
// kind the policies of kind declare for its name (see ReadValue).
func parseParams(file string, kind Kind, field string, n *yaml.Node, dst Params, lines map[string]*yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return cfgErr(file, n, field, "want a mapping of name: value")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return cfgErr(file, v, field+"."+k.Value, "want a single value (number, duration, word)")
		}
		if _, dup := lines[k.Value]; dup {
			return cfgErr(file, k, field+"."+k.Value, "given twice")
		}
		dst[k.Value], lines[k.Value] = ReadValue(kind, k.Value, v.Value), v
	}
	return nil
}

// paramInErr finds the parameter an error message names.
var paramInErr = regexp.MustCompile(`parameter "?([a-z0-9_]+)"?`)

// checkSection checks the named policy exists and builds it once with the
// file's parameters, so a bad name or value is reported with its line.
func checkSection(file string, kind Kind, n *yaml.Node, sec *PolicySection, lines map[string]*yaml.Node) error {
	spec, err := Lookup(kind, sec.Name)
	if err != nil {
		return cfgErr(file, n, string(kind)+".name", err.Error())
	}
	full, err := spec.resolve(sec.Params)
	if err == nil {
		rng := rand.New(rand.NewPCG(0, 0))
		if kind == KindRouter {
			_, err = spec.newRouter(full, rng)
		} else {
			_, err = spec.newQueue(full, rng)
		}
		if err != nil {
			err = fmt.Errorf("%s %s: %w", kind, sec.Name, spec.blameEnv(sec.Params, err))
		}
	}
	if err == nil {
		return nil
	}
	at, field := n, string(kind)
	if v, ok := lines["preset"]; ok && strings.Contains(err.Error(), "unknown preset") {
		at, field = v, field+".preset"
	} else if m := paramInErr.FindStringSubmatch(err.Error()); m != nil {
		if v, ok := lines[m[1]]; ok {
			at, field = v, field+".params."+m[1]
		}
	}
	return cfgErr(file, at, field, err.Error())
}

// cfgErr formats "policy config FILE line N: FIELD: msg".
func cfgErr(file string, n *yaml.Node, field, msg string) error {
	if field == "" {
		return fmt.Errorf("policy config %s line %d: %s", file, n.Line, msg)
	}
	return fmt.Errorf("policy config %s line %d: %s: %s", file, n.Line, field, msg)
}
