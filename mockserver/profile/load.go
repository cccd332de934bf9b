package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads the profile file at path (see Parse).
func Load(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	return Parse(data, path)
}

// Resolve returns the built-in profile called nameOrPath, or else loads
// the file of that path.
func Resolve(nameOrPath string) (*Profile, error) {
	if p, ok := builtin(nameOrPath); ok {
		return p, nil
	}
	if _, err := os.Stat(nameOrPath); err != nil {
		return nil, fmt.Errorf("profile %q: neither a built-in profile (%s) nor a readable file",
			nameOrPath, strings.Join(Names(), ", "))
	}
	return Load(nameOrPath)
}

// Parse decodes and validates a profile; file names it in errors. Fields
// left out take the value of the "default" profile, except latency.gamma
// in a profile with a llamacpp section: 0 there, as llama.cpp runs a
// decode batch as ubatches that each pay β once (calibrate fits it so).
// Errors name the file, the line and the field: "p.yaml:7:
// latency.gamma: -1: want ≥ 0".
func Parse(data []byte, file string) (*Profile, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, located(file, &root, err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("profile %s: want a YAML mapping with name, engine and latency", file)
	}
	p := defaults()
	p.Name, p.Description, p.Source, p.FittedOn, p.Notes = "", "", "", "", ""
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
		return nil, located(file, &root, err)
	}
	if _, set := lookup(root.Content[0], "latency.gamma"); p.LlamaCpp != nil && !set {
		p.Latency.Gamma = 0
	}
	if err := p.validate(); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("%s:%d: %s: %s", file, lineOf(root.Content[0], fe.path), fe.path, fe.msg)
		}
		return nil, fmt.Errorf("profile %s: %w", file, err)
	}
	return &p, nil
}

// Marshal renders p as YAML.
func Marshal(p *Profile) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	return b.Bytes(), enc.Close()
}

var lineRE = regexp.MustCompile(`line (\d+): (.*)`)

// located rewrites a yaml error as "file:line: field: message", naming the
// field found at that line.
func located(file string, root *yaml.Node, err error) error {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("profile %s: %s", file, strings.TrimPrefix(msg, "yaml: "))
	}
	line, _ := strconv.Atoi(m[1])
	detail := m[2]
	if f := regexp.MustCompile(`field (\S+) not found in type`).FindStringSubmatch(detail); f != nil {
		detail = fmt.Sprintf("unknown field %q", f[1])
	}
	if len(root.Content) > 0 {
		if path := pathAt(root.Content[0], line, ""); path != "" {
			return fmt.Errorf("%s:%d: %s: %s", file, line, path, detail)
		}
	}
	return fmt.Errorf("%s:%d: %s", file, line, detail)
}

// pathAt returns the dotted key path of the key on line, or "".
func pathAt(n *yaml.Node, line int, prefix string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if k.Line == line {
			return path
		}
		if p := pathAt(v, line, path); p != "" {
			return p
		}
	}
	return ""
}

// lineOf returns the line of the dotted key path in n (0 when absent:
// the value came from the default profile).
func lineOf(n *yaml.Node, path string) int {
	line, _ := lookup(n, path)
	return line
}

// lookup walks the dotted path from the mapping n: the line of the
// deepest key found, and whether the whole path was.
func lookup(n *yaml.Node, path string) (line int, found bool) {
	for _, key := range strings.Split(path, ".") {
		if n == nil || n.Kind != yaml.MappingNode {
			return line, false
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, next = n.Content[i].Line, n.Content[i+1]
			}
		}
		if next == nil {
			return line, false
		}
		n = next
	}
	return line, true
}
