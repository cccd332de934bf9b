package traces

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readServeGen opens path as ServeGen data and reads every request.
func readServeGen(t *testing.T, path string, seed uint64) []Request {
	t.Helper()
	fs, err := Open(path, ReadOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if fs.Format() != FormatServeGen {
		t.Fatalf("detected %s", fs.Format())
	}
	got, err := ReadAll(fs)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestServeGen reads the sample model directory (two clients in the
// published layout) and checks what each window must give: its request
// count, the lengths its distributions allow, and ServeGen's one uniform
// per request (a long prompt goes with a long output).
func TestServeGen(t *testing.T) {
	got := readServeGen(t, "testdata/servegen", 1)
	type key struct {
		user   string
		window int64
	}
	counts := map[key]int{}
	long := 0
	for i, r := range got {
		if i > 0 && r.Arrival < got[i-1].Arrival {
			t.Fatalf("request %d at %v before %v", i, r.Arrival, got[i-1].Arrival)
		}
		w := int64(r.Arrival / (600 * time.Second) * 600)
		counts[key{r.User, w}]++
		in, out := r.InputTokens, r.OutputTokens
		switch {
		case r.User == "client-1" && w < 1200:
			if in != 100 && in != 2000 || out != 10 && out != 50 {
				t.Fatalf("client-1 window %d: lengths %d/%d outside the distributions", w, in, out)
			}
			if in == 2000 && out != 50 {
				t.Fatalf("input 2000 (u > 0.5) with output %d, want 50 (u > 0.25)", out)
			}
			if in == 2000 {
				long++
			}
		case r.User == "client-7" && w == 0:
			if in != 1 && in != 64 && in != 512 || out != 1 && out != 300 {
				t.Fatalf("client-7 window 0: lengths %d/%d", in, out)
			}
		case r.User == "client-7":
			if in != 4096 || out != 1 {
				t.Fatalf("client-7 window %d: lengths %d/%d, want 4096/1", w, in, out)
			}
		default:
			t.Fatalf("unexpected request %+v", r)
		}
	}
	// n = ceil(rate × 600 s) gaps, rescaled to the window; the last
	// arrival falls on the window's end (or just before it by rounding).
	want := map[key]int{{"client-1", 0}: 1200, {"client-1", 600}: 300,
		{"client-7", 0}: 600, {"client-7", 600}: 600, {"client-7", 1200}: 150}
	for k, n := range want {
		if c := counts[k]; c != n && c != n-1 {
			t.Errorf("%v: %d requests, want %d or %d", k, c, n-1, n)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("windows %v, want %v", counts, want)
	}
	if f := float64(long) / float64(counts[key{"client-1", 0}]+counts[key{"client-1", 600}]); math.Abs(f-0.5) > 0.05 {
		t.Errorf("share of 2000-token prompts %.3f, want 0.5", f)
	}
}

func TestServeGenSeeded(t *testing.T) {
	a, b := readServeGen(t, "testdata/servegen", 7), readServeGen(t, "testdata/servegen", 7)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("same seed, different requests:\n%s", d)
	}
	c := readServeGen(t, "testdata/servegen", 8)
	if cmp.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same requests")
	}
}

// TestServeGenOneClient reads one client's chunk-N-trace.csv.
func TestServeGenOneClient(t *testing.T) {
	got := readServeGen(t, "testdata/servegen/chunk-7-trace.csv", 1)
	for _, r := range got {
		if r.User != "client-7" {
			t.Fatalf("request of %s", r.User)
		}
	}
	if n := len(got); n < 1347 || n > 1350 {
		t.Errorf("%d requests, want 1347 to 1350", n)
	}
}

// TestServeGenBurstiness checks the gaps keep the pattern's coefficient
// of variation: rescaling to the window multiplies them by a constant.
func TestServeGenBurstiness(t *testing.T) {
	weibullCV := func(k float64) float64 {
		g1, g2 := math.Gamma(1+1/k), math.Gamma(1+2/k)
		return math.Sqrt(g2/(g1*g1) - 1)
	}
	for _, tc := range []struct {
		line string
		cv   float64
	}{
		{"0,20,2,Gamma,0.25,1", 2},
		{"0,20,1,Gamma,1,3", 1},
		{"0,20,0.5,Gamma,4,0.1", 0.5},
		{"0,20,0,Weibull,0.7,2", weibullCV(0.7)},
	} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "chunk-3-trace.csv"), tc.line+"\n")
		write(t, filepath.Join(dir, "chunk-3-dataset.json"), `{"0": {"input_tokens": "{5: 1.0}", "output_tokens": "{5: 1.0}"}}`)
		got := readServeGen(t, dir, 1)
		var gaps []float64
		for i := 1; i < len(got); i++ {
			gaps = append(gaps, (got[i].Arrival - got[i-1].Arrival).Seconds())
		}
		mean, sd := meanSD(gaps)
		if cv := sd / mean; math.Abs(cv-tc.cv) > 0.1*tc.cv {
			t.Errorf("%s: gap CV %.3f, want %.3f", tc.line, cv, tc.cv)
		}
		if n := len(got); n < 11999 {
			t.Errorf("%s: %d requests, want 12000 (or 11999)", tc.line, n)
		}
	}
}

func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeGenErrors: the first bad line or value is one error naming the
// file, the line and the field.
func TestServeGenErrors(t *testing.T) {
	okTrace := "0,1,1,Gamma,1,1\n"
	okData := `{"0": {"input_tokens": "{5: 1.0}", "output_tokens": "{5: 1.0}"}}`
	for _, tc := range []struct {
		name, trace, data, want string
	}{
		{"rate", okTrace + "600,-1,1,Gamma,1,1\n", okData, "chunk-2-trace.csv line 2 field rate: \"-1\""},
		{"pattern", "0,1,1,Poisson,1,1\n", okData, "chunk-2-trace.csv line 1 field pattern: \"Poisson\""},
		{"shape", "0,1,1,Weibull,0,1\n", okData, "chunk-2-trace.csv line 1 field shape"},
		{"columns", "0,1,1,Gamma\n", okData, "chunk-2-trace.csv line 1: 4 columns"},
		{"order", okTrace + "0,1,1,Gamma,1,1\n", okData, "chunk-2-trace.csv line 2 field timestamp: window start 0 s not after"},
		{"timestamp", "x,1,1,Gamma,1,1\n", okData, "chunk-2-trace.csv line 1 field timestamp"},
		{"sum", okTrace, "{\n\"0\": {\"input_tokens\": \"{5: 0.5}\", \"output_tokens\": \"{5: 1.0}\"}}", "chunk-2-dataset.json line 2 field 0.input_tokens: probabilities sum to 0.5"},
		{"length", okTrace, "{\"0\": {\n\"input_tokens\": \"{5: 1.0}\",\n\"output_tokens\": \"{-5: 1.0}\"}}", "chunk-2-dataset.json line 3 field 0.output_tokens: length \"-5\""},
		{"missing", okTrace, `{"0": {"input_tokens": "{5: 1.0}"}}`, "chunk-2-dataset.json line 1 field 0.output_tokens: missing"},
		{"no window", "600,1,1,Gamma,1,1\n", `{"900": {"input_tokens": "{5: 1.0}", "output_tokens": "{5: 1.0}"}}`, "window 600 s sends requests but"},
		{"too many", "0,1,1,Gamma,1,1\n999999,1000,1,Gamma,1,1\n", okData, "chunk-2-trace.csv line 2 field rate: 1000 req/s over the 999999 s window gives 999999000 requests"},
		{"json", okTrace, `{"0": [`, "chunk-2-dataset.json line 1 field 0: got ["},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "chunk-2-trace.csv"), tc.trace)
			write(t, filepath.Join(dir, "chunk-2-dataset.json"), tc.data)
			_, err := Open(dir, ReadOptions{Format: FormatServeGen})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line containing %q", err, tc.want)
			}
		})
	}
}

// TestServeGenSkipInvalid leaves a bad window out and counts it.
func TestServeGenSkipInvalid(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "chunk-2-trace.csv"), "0,1,1,Gamma,1,1\n600,1,1,Nope,1,1\n")
	write(t, filepath.Join(dir, "chunk-2-dataset.json"), `{"0": {"input_tokens": "{5: 1.0}", "output_tokens": "{5: 1.0}"}}`)
	fs, err := Open(dir, ReadOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(fs)
	if err != nil || fs.Skipped() != 1 || len(got) < 599 || len(got) > 600 {
		t.Errorf("%d requests, %d skipped, %v; want 599 or 600, 1 skipped", len(got), fs.Skipped(), err)
	}
}

func TestServeGenNotAStream(t *testing.T) {
	_, err := NewReader(strings.NewReader("0,1,1,Gamma,1,1\n"), "-", ReadOptions{Format: FormatServeGen})
	if err == nil || !strings.Contains(err.Error(), "model directory") {
		t.Errorf("error %v", err)
	}
	_, err = Open("testdata/servegen", ReadOptions{TimeUnit: "ms"})
	if err == nil || !strings.Contains(err.Error(), "ReadOptions.TimeUnit") {
		t.Errorf("error %v", err)
	}
}
