package traces

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// FormatServeGen names the Alibaba ServeGen client data (alibaba/ServeGen,
// data/{language,reason}/MODEL/): per client N, chunk-N-trace.csv gives
// the arrival process of each 10-minute window and chunk-N-dataset.json
// its length distributions. The files describe distributions, not
// requests: Open generates a request stream from them (see
// openServeGen).
const FormatServeGen = "servegen"

// serveGenDefaultWindow is the length of a client's last window when its
// trace has only one (600 s, the published window).
const serveGenDefaultWindow = 600

// maxServeGenWindowRequests bounds the requests one window may generate
// (rate × window length), so a corrupt rate cannot exhaust memory.
const maxServeGenWindowRequests = 1 << 22

// serveGenTraceName matches a client's trace file and captures its id.
var serveGenTraceName = regexp.MustCompile(`^chunk-(\d+)-trace\.csv$`)

// isServeGenPath reports whether path is a ServeGen model directory (it
// holds a chunk-N-trace.csv) or one client's chunk-N-trace.csv.
func isServeGenPath(path string) bool {
	if serveGenTraceName.MatchString(filepath.Base(path)) {
		return true
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(path, "chunk-*-trace.csv"))
	return len(m) > 0
}

// serveGenClient is one client's published data.
type serveGenClient struct {
	id      int
	file    string
	windows []serveGenWindow
	lengths []serveGenLengths
}

// openServeGen reads the clients at path (a model directory: every
// chunk-N-trace.csv with its chunk-N-dataset.json; or one
// chunk-N-trace.csv) and returns a FileSource generating their requests,
// seeded by opt.Seed, as ServeGen's generate_workload does at each
// client's own rate (servegen/construct.py):
//
//   - a window runs from its start to the client's next window (the last
//     one as long as the one before it; 600 s when it is the only one);
//   - it draws n = ceil(rate × length) gaps from Gamma(shape, scale) or
//     Weibull(shape, scale), rescales them to sum to the window length,
//     and keeps the arrivals before the window's end;
//   - each request draws one uniform u and takes as input and output
//     length the u-quantile of the window's input_tokens and
//     output_tokens distributions (the dataset window starting at or
//     before the trace window), so in ServeGen long prompts go with long
//     outputs; lengths below 1 become 1.
//
// Client N becomes user "client-N". Times are seconds from the day's
// start; the FileSource rebases them to the first request.
func openServeGen(path string, opt ReadOptions) (*FileSource, error) {
	if opt.TimeUnit != "" {
		return nil, fmt.Errorf("ReadOptions.TimeUnit %s: ServeGen windows are in seconds", opt.TimeUnit)
	}
	clients, skipped, err := loadServeGen(path, opt.SkipInvalid)
	if err != nil {
		return nil, err
	}
	g := newServeGenGen(clients, opt.Seed)
	return &FileSource{path: path, format: FormatServeGen, rd: g, skip: opt.SkipInvalid,
		timeKey: "timestamp", skipped: skipped}, nil
}

// loadServeGen reads the clients at path, sorted by id.
func loadServeGen(path string, skip bool) ([]serveGenClient, int, error) {
	files := []string{path}
	if st, err := os.Stat(path); err != nil {
		return nil, 0, fmt.Errorf("open trace: %w", err)
	} else if st.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "chunk-*-trace.csv"))
		if len(files) == 0 {
			return nil, 0, fmt.Errorf("read trace %s: no chunk-N-trace.csv in the directory", path)
		}
	}
	var clients []serveGenClient
	skipped := 0
	for _, f := range files {
		m := serveGenTraceName.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			return nil, 0, fmt.Errorf("read trace %s: want a ServeGen model directory or a chunk-N-trace.csv", f)
		}
		id, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, 0, fmt.Errorf("read trace %s: client id %q: %w", f, m[1], err)
		}
		c, n, err := loadServeGenClient(f, id, skip)
		if err != nil {
			return nil, 0, err
		}
		skipped += n
		clients = append(clients, c)
	}
	slices.SortFunc(clients, func(a, b serveGenClient) int { return a.id - b.id })
	return clients, skipped, nil
}

// loadServeGenClient reads one client's trace and dataset files.
func loadServeGenClient(traceFile string, id int, skip bool) (serveGenClient, int, error) {
	c := serveGenClient{id: id, file: traceFile}
	f, err := os.Open(traceFile)
	if err != nil {
		return c, 0, fmt.Errorf("open trace: %w", err)
	}
	defer f.Close()
	windows, skipped, err := readServeGenTrace(f, traceFile, skip)
	c.windows = windows
	if err != nil {
		return c, 0, err
	}
	dsFile := filepath.Join(filepath.Dir(traceFile), fmt.Sprintf("chunk-%d-dataset.json", id))
	data, err := os.ReadFile(dsFile)
	if err != nil {
		return c, 0, fmt.Errorf("read trace %s: its length distributions: %w", traceFile, err)
	}
	if c.lengths, err = readServeGenDataset(data, dsFile); err != nil {
		return c, 0, err
	}
	for i, w := range c.windows {
		if n := w.Rate * float64(c.windowEnd(i)-w.Start); n > maxServeGenWindowRequests {
			return c, 0, &ParseError{File: traceFile, Line: w.Line, Field: "rate",
				Err: fmt.Errorf("%g req/s over the %d s window gives %.0f requests, more than %d", w.Rate, c.windowEnd(i)-w.Start, n, maxServeGenWindowRequests)}
		}
		if w.Pattern != "" && w.Rate > 0 && c.lengthsAt(w.Start) == nil {
			return c, 0, fmt.Errorf("read trace %s: window %d s sends requests but %s has no length distributions at or before it",
				traceFile, w.Start, dsFile)
		}
	}
	return c, skipped, nil
}

// lengthsAt returns the dataset window in force at start: the last one
// starting at or before it (nil when none).
func (c *serveGenClient) lengthsAt(start int64) *serveGenLengths {
	i, _ := slices.BinarySearchFunc(c.lengths, start+1, func(l serveGenLengths, t int64) int { return int(l.Start - t) })
	if i == 0 {
		return nil
	}
	return &c.lengths[i-1]
}

// windowEnd returns the end of the client's i-th window in seconds.
func (c *serveGenClient) windowEnd(i int) int64 {
	w := c.windows
	switch {
	case i+1 < len(w):
		return w[i+1].Start
	case i > 0:
		return w[i].Start + w[i].Start - w[i-1].Start
	}
	return w[i].Start + serveGenDefaultWindow
}

// serveGenSlot is one client window to generate.
type serveGenSlot struct{ client, window int }

// serveGenGen generates the requests of every client window in arrival
// order. It holds the requests of the windows begun so far and draws a
// window's requests only when no held request arrives before its start.
type serveGenGen struct {
	clients []serveGenClient
	slots   []serveGenSlot
	cursor  int
	rng     *rand.Rand
	pending merger
	seq     []int
}

// newServeGenGen orders every client window by start, then client id.
func newServeGenGen(clients []serveGenClient, seed uint64) *serveGenGen {
	g := &serveGenGen{clients: clients, seq: make([]int, len(clients)),
		rng: rand.New(rand.NewPCG(seed, 0x736572766567656e))}
	for ci, c := range clients {
		for wi := range c.windows {
			g.slots = append(g.slots, serveGenSlot{ci, wi})
		}
	}
	slices.SortStableFunc(g.slots, func(a, b serveGenSlot) int {
		sa, sb := clients[a.client].windows[a.window].Start, clients[b.client].windows[b.window].Start
		return int(sa - sb)
	})
	return g
}

// next implements recordReader.
func (g *serveGenGen) next() (Request, error) {
	for g.cursor < len(g.slots) {
		s := g.slots[g.cursor]
		start := time.Duration(g.clients[s.client].windows[s.window].Start) * time.Second
		if next, ok := g.pending.peek(); ok && next.Arrival < start {
			break
		}
		g.cursor++
		g.generate(s)
	}
	r, ok := g.pending.pop()
	if !ok {
		return Request{}, io.EOF
	}
	return r, nil
}

// generate draws one client window's requests into pending.
func (g *serveGenGen) generate(s serveGenSlot) {
	c := &g.clients[s.client]
	w := c.windows[s.window]
	if w.Pattern == "" || w.Rate <= 0 {
		return
	}
	length := float64(c.windowEnd(s.window) - w.Start)
	n := int(math.Min(math.Ceil(w.Rate*length), maxServeGenWindowRequests)) // checked at load
	gaps := make([]float64, n)
	sum := 0.0
	for i := range gaps {
		gaps[i] = g.gap(w)
		sum += gaps[i]
	}
	scale := 0.0
	if sum > 0 && !math.IsInf(sum, 0) {
		scale = length / sum
	}
	ls := c.lengthsAt(w.Start)
	t := 0.0
	for _, gap := range gaps {
		t += gap * scale
		if t >= length {
			break
		}
		u := g.rng.Float64()
		g.seq[s.client]++
		g.pending.push(Request{
			ID:           "client-" + strconv.Itoa(c.id) + "-" + strconv.Itoa(g.seq[s.client]),
			User:         "client-" + strconv.Itoa(c.id),
			Arrival:      secondsDur(float64(w.Start) + t),
			InputTokens:  max(1, ls.Input.sample(u)),
			OutputTokens: max(1, ls.Output.sample(u)),
		})
	}
}

// gap draws one inter-arrival time of w's pattern (before rescaling).
func (g *serveGenGen) gap(w serveGenWindow) float64 {
	if w.Pattern == serveGenWeibull {
		return w.Scale * math.Pow(-math.Log(1-g.rng.Float64()), 1/w.Shape)
	}
	return w.Scale * gammaSample(g.rng, w.Shape)
}
