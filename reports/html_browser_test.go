package reports

import (
	"context"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/reports/html"
)

// browser returns the path of a headless-capable Chromium, or skips.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no browser: install Debian's chromium package (apt-get install -y chromium) to run the HTML browser test")
	return ""
}

// runBrowser runs headless Chromium on url with extra flags, offline and
// with a fresh profile, and returns its standard output.
func runBrowser(t *testing.T, bin, url string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", bin, strings.Join(extra, " "), err)
	}
	return out
}

// TestHTMLInBrowser opens a report in headless Chromium: the script runs
// and sorts the comparison table as the address asks, the verdict and
// every run's row render, and a screenshot is not blank.
func TestHTMLInBrowser(t *testing.T) {
	bin := browser(t)
	dir := t.TempDir()
	r := HTMLFromRuns(goldenSummaries(t), RenderOptions{Title: "Browser report"})
	if err := html.WriteFile(dir, r); err != nil {
		t.Fatal(err)
	}
	col := slices.Index(r.Table.Head, "TTFT p99 ms")
	if col < 0 {
		t.Fatal("the comparison table has no TTFT p99 ms column")
	}
	url := "file://" + filepath.Join(dir, html.File)
	dom := string(runBrowser(t, bin, url+"#sort="+strconv.Itoa(col)+"-desc", "--dump-dom"))
	if !strings.Contains(dom, `<html lang="en" class="js">`) {
		t.Errorf("the page's script did not run")
	}
	if !strings.Contains(dom, textfmt.Capitalize(r.Verdict.Headline())) {
		t.Errorf("the verdict %q is not in the rendered page", r.Verdict.Headline())
	}
	if got, want := comparisonOrder(t, dom), expectedOrder(r.Table, col); !slices.Equal(got, want) {
		t.Errorf("comparison rows sorted by column %d descending: %q, want %q", col, got, want)
	}
	if n := strings.Count(dom, `aria-sort="descending"`); n != 1 {
		t.Errorf("%d headers marked descending, want 1", n)
	}
	shot := filepath.Join(dir, "shot.png")
	runBrowser(t, bin, url, "--screenshot="+shot, "--window-size=1200,1600", "--hide-scrollbars")
	checkNotBlank(t, shot)
}

// comparisonOrder is the run names of the comparison table, in the
// order the page shows them.
func comparisonOrder(t *testing.T, dom string) []string {
	t.Helper()
	i := strings.Index(dom, `id="comparison"`)
	if i < 0 {
		t.Fatal("no comparison section in the rendered page")
	}
	body := dom[i:]
	body = body[:strings.Index(body, "</tbody>")]
	var names []string
	for _, m := range regexp.MustCompile(`<tr><td>([^<]*)</td>`).FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

// expectedOrder is the table's run names sorted by column col, highest
// first.
func expectedOrder(t html.Table, col int) []string {
	rows := slices.Clone(t.Rows)
	slices.SortStableFunc(rows, func(a, b []html.Cell) int { return -cmpKey(a[col].Key, b[col].Key) })
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r[0].Text
	}
	return names
}

func cmpKey(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkNotBlank fails unless the screenshot's luminance varies: a blank
// page is one colour.
func checkNotBlank(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	var n, sum, sq, dark float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			l := (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 257
			n, sum, sq = n+1, sum+l, sq+l*l
			if l < 128 {
				dark++
			}
		}
	}
	mean := sum / n
	sd := math.Sqrt(math.Max(0, sq/n-mean*mean))
	t.Logf("screenshot %dx%d: luminance mean %.1f, stddev %.1f, dark pixels %.1f %%", b.Dx(), b.Dy(), mean, sd, 100*dark/n)
	if sd < 20 || dark/n < 0.02 {
		t.Errorf("the screenshot looks blank: luminance stddev %.1f (want ≥ 20), dark pixels %.2f %% (want ≥ 2 %%)", sd, 100*dark/n)
	}
}
