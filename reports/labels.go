package reports

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tracebench/tracebench/metrics"
)

// labelFacet is a header field that can tell runs of one policy apart.
type labelFacet struct {
	name string
	get  func(*metrics.Summary) string
}

// labelFacets are the facets labelRuns adds, in order, when runs share a
// name: the parameters the policy ran with, the API, the trace or
// workload, the mode, the fleet size, the seed, the model and, last,
// the start time.
var labelFacets = []labelFacet{
	{"", func(s *metrics.Summary) string { return paramsText(s.Header.RouterParams, s.Header.QueueParams) }},
	{"api", func(s *metrics.Summary) string { return s.Header.Config.API }},
	{"trace", func(s *metrics.Summary) string { return s.Header.Trace }},
	{"mode", func(s *metrics.Summary) string { return string(s.Header.Mode) }},
	{"backends", func(s *metrics.Summary) string { return strconv.Itoa(len(s.Header.Backends)) }},
	{"seed", func(s *metrics.Summary) string { return strconv.FormatUint(s.Header.Seed, 10) }},
	{"model", func(s *metrics.Summary) string { return s.Header.Config.Model }},
	{"started", func(s *metrics.Summary) string { return s.Header.Started.UTC().Format(time.RFC3339) }},
}

// paramsText is "k=v k=v" of both parameter maps, sorted by key.
func paramsText(ms ...map[string]string) string {
	var parts []string
	for _, m := range ms {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.Join(parts, " ")
}

// labelRuns gives every run a display name (Name) unique within runs.
// Runs whose policy names are equal get, in parentheses, the facets
// whose values differ among them ("prefix-cache (seed 2)",
// "round-robin (api chat, trace t.jsonl (mooncake))"); runs alike in
// every facet are numbered in order ("p #1", "p #2").
func labelRuns(runs []*metrics.Summary) {
	groups := map[string][]*metrics.Summary{}
	for _, s := range runs {
		s.SetLabel("")
		groups[s.Name()] = append(groups[s.Name()], s)
	}
	for base, g := range groups {
		if len(g) < 2 {
			continue
		}
		extra := make([][]string, len(g))
		for _, f := range labelFacets {
			if labelsUnique(extra) {
				break
			}
			if !facetVaries(g, f) {
				continue
			}
			for i, s := range g {
				v := f.get(s)
				switch {
				case v == "" && f.name == "":
					v = "defaults"
				case v == "":
					v = "none"
				}
				extra[i] = append(extra[i], strings.TrimSpace(f.name+" "+v))
			}
		}
		unique := labelsUnique(extra)
		for i, s := range g {
			s.SetLabel(base)
			if len(extra[i]) > 0 {
				s.SetLabel(s.Label() + " (" + strings.Join(extra[i], ", ") + ")")
			}
			if !unique {
				s.SetLabel(s.Label() + fmt.Sprintf(" #%d", i+1))
			}
		}
	}
}

// facetVaries reports whether f differs among g.
func facetVaries(g []*metrics.Summary, f labelFacet) bool {
	for _, s := range g[1:] {
		if f.get(s) != f.get(g[0]) {
			return true
		}
	}
	return false
}

// labelsUnique reports whether the extras tell every member apart.
func labelsUnique(extra [][]string) bool {
	seen := map[string]bool{}
	for _, e := range extra {
		k := strings.Join(e, "\x00")
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}
