package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// seedsDefault finds bench's seeds default without a backend flag in a
// flag description.
var seedsDefault = regexp.MustCompile(`without a backend flag: default (\d+)`)

// TestBenchSeedsDefaultOneValue: the seeds the two-stage bench runs when
// --seeds is not given are the value its --help states and the value
// docs/cli.md states.
func TestBenchSeedsDefaultOneValue(t *testing.T) {
	o := &benchOptions{}
	cmd := benchCmd(o)
	cmd.SetContext(context.Background())
	if err := cmd.ParseFlags([]string{"--out", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	spec, err := o.decideSpec(cmd)
	if err != nil {
		t.Fatal(err)
	}
	help := seedsDefault.FindStringSubmatch(cmd.Flags().Lookup("seeds").Usage)
	if help == nil {
		t.Fatalf("--seeds help %q does not state the default without a backend flag", cmd.Flags().Lookup("seeds").Usage)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, benchTable, _ := strings.Cut(string(doc), "## `tracebench bench`")
	benchTable, _, _ = strings.Cut(benchTable, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `--seeds` \\|.*$").FindString(benchTable)
	docs := seedsDefault.FindStringSubmatch(row)
	if docs == nil {
		t.Fatalf("docs/cli.md's bench --seeds row %q does not state the default without a backend flag", row)
	}
	if got := strconv.Itoa(spec.Seeds); help[1] != got || docs[1] != got {
		t.Errorf("seeds without a backend flag: the code runs %s, --help says %s, docs/cli.md says %s", got, help[1], docs[1])
	}
}
