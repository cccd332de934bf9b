package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository root relative to this package.
const repoRoot = "../.."

// mdRef matches a Markdown file name or path; urlRef a URL, whose paths
// are public and may be cited.
var (
	mdRef  = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b`)
	urlRef = regexp.MustCompile(`https?://[^\s)>"'\x60]+`)
)

// writtenFiles are the Markdown files tracebench writes into its output
// directory; naming them is no citation.
var writtenFiles = map[string]bool{"report.md": true, "sweep.md": true, "plan.md": true}

// TestCitationsOpenable fails on a Markdown file named in code or docs
// that a reader of the repository cannot open: every .md a non-test Go
// file or a Markdown page names must be a file of the repository (docs/,
// a README) or a URL, and nothing may point at a directory beside the
// repository.
func TestCitationsOpenable(t *testing.T) {
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
		if checked(path) {
			checkCitations(t, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checked reports whether path is a non-test Go file or a Markdown page.
func checked(path string) bool {
	return strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
}

// checkCitations reports every line of path that names an unopenable
// Markdown file or a path outside the repository.
func checkCitations(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rel, _ := filepath.Rel(repoRoot, path)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := urlRef.ReplaceAllString(sc.Text(), "URL")
		if strings.Contains(line, "../shared") {
			t.Errorf("%s:%d: names ../shared, a directory beside the repository that users do not have", rel, n)
		}
		for _, m := range mdRef.FindAllString(line, -1) {
			if !openable(path, m) {
				t.Errorf("%s:%d: cites %s, not a file of the repository: cite a URL, paper or repository path instead", rel, n, m)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

// openable reports whether ref, named in the file at path, is a Markdown
// file of the repository (relative to the root or to path's directory)
// or one tracebench writes.
func openable(path, ref string) bool {
	if writtenFiles[filepath.Base(ref)] {
		return true
	}
	for _, p := range []string{filepath.Join(repoRoot, ref), filepath.Join(filepath.Dir(path), ref)} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}
