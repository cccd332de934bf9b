package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches a Markdown link to a section: its path (empty for the
// same page) and its anchor.
var mdLink = regexp.MustCompile(`\]\(([^)\s#]*)#([^)\s]+)\)`)

// TestDocAnchorsResolve fails on a link from one Markdown page of the
// repository to a section of another (or of itself) that the page does
// not have, as when a page is split and its sections move.
func TestDocAnchorsResolve(t *testing.T) {
	pages := map[string]string{}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != repoRoot && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			pages[filepath.Clean(path)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	for path, text := range pages {
		anchors[path] = headingAnchors(text)
	}
	for path, text := range pages {
		for n, line := range strings.Split(text, "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				if strings.Contains(m[1], "://") {
					continue
				}
				target := path
				if m[1] != "" {
					target = filepath.Join(filepath.Dir(path), m[1])
				}
				rel, _ := filepath.Rel(repoRoot, path)
				if set, ok := anchors[target]; ok && !set[m[2]] {
					t.Errorf("%s:%d: links to %s#%s, a section that page does not have", rel, n+1, m[1], m[2])
				}
			}
		}
	}
}

// headingAnchors are the anchors of text's headings (outside code
// blocks) as GitHub makes them: lower case, punctuation but hyphens and
// underscores dropped, spaces as hyphens, "-1", "-2"... after repeats.
func headingAnchors(text string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		h := strings.TrimLeft(line, "#")
		if fenced || h == line || !strings.HasPrefix(h, " ") {
			continue
		}
		a := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, strings.TrimSpace(h))
		if k := seen[a]; k > 0 {
			set[fmt.Sprintf("%s-%d", a, k)] = true
		} else {
			set[a] = true
		}
		seen[a]++
	}
	return set
}
