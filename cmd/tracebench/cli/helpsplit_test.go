package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// maxHelpLines is one screen: --help of a run command must fit in it.
const maxHelpLines = 50

// helpOf runs `tracebench CMD FLAG` and returns what it printed.
func helpOf(t *testing.T, cmd, flag string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := Run([]string{cmd, flag}, &out, &errOut); code != ExitOK {
		t.Fatalf("%s %s: exit %d: %s", cmd, flag, code, errOut.String())
	}
	return out.String()
}

// TestHelpFitsOneScreen: --help of bench, replay, sweep and mock fits
// one screen, and the line counts are the golden ones (so a flag that
// joins the everyday list is a visible change).
func TestHelpFitsOneScreen(t *testing.T) {
	var got strings.Builder
	for _, cmd := range []string{"bench", "replay", "sweep", "mock"} {
		n := strings.Count(helpOf(t, cmd, "--help"), "\n")
		if n > maxHelpLines {
			t.Errorf("%s --help: %d lines, want at most %d", cmd, n, maxHelpLines)
		}
		fmt.Fprintf(&got, "%s --help: %d lines\n", cmd, n)
	}
	golden := filepath.Join("testdata", "help-lines.golden")
	if updating() {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("help line counts:\n%s\nwant (%s; -update rewrites it):\n%s", got.String(), golden, want)
	}
}

// TestHelpAllListsEveryFlag: --help-all lists every flag that is not
// deprecated, --help only the everyday ones and a line counting the
// others, and docs/cli.md documents every flag --help-all lists.
func TestHelpAllListsEveryFlag(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bench", "replay", "sweep", "mock"} {
		t.Run(name, func(t *testing.T) {
			cmd, _, err := NewRoot(&bytes.Buffer{}, &bytes.Buffer{}).Find([]string{name})
			if err != nil {
				t.Fatal(err)
			}
			all, short := helpOf(t, name, "--help-all"), helpOf(t, name, "--help")
			hidden := 0
			cmd.Flags().VisitAll(func(f *pflag.Flag) {
				listed := regexp.MustCompile(`(?m)^ +(-\w, )?--` + regexp.QuoteMeta(f.Name) + ` `)
				switch {
				case f.Hidden && f.Deprecated == "":
					return // not a flag of this command (sweep sets the rate itself)
				case f.Deprecated != "":
					if listed.MatchString(all) {
						t.Errorf("--help-all lists deprecated --%s", f.Name)
					}
				case !listed.MatchString(all):
					t.Errorf("--help-all misses --%s", f.Name)
				case !everydayFlags[name][f.Name]:
					hidden++
					if listed.MatchString(short) {
						t.Errorf("--help lists --%s, not an everyday flag", f.Name)
					}
				}
				if f.Deprecated == "" && !strings.Contains(string(doc), "`--"+f.Name+"`") {
					t.Errorf("docs/cli.md does not document %s --%s", name, f.Name)
				}
			})
			if want := fmt.Sprintf("%d more flags: tracebench %s --help-all", hidden, name); !strings.Contains(short, want) {
				t.Errorf("--help does not say %q", want)
			}
		})
	}
}
