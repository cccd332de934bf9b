package calibrate

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// request is one successful request as the fit sees it; times in seconds
// from the start of its run.
type request struct {
	sent, first, done float64
	// prompt and computed are the prompt tokens and those not served from
	// the prefix cache; out is the output tokens.
	prompt, computed, out int
	// cv is the coefficient of variation of the request's chunk gaps (-1
	// when unknown).
	cv float64
	// promptSecs is the server's own time for the prompt (llama.cpp's
	// timings.prompt_ms, in seconds; 0 when the server sent none).
	promptSecs float64
	// id is the request's id in its results file.
	id string
	// saved is the tokens a llama-server's slot-switch save copied when
	// the request took its slot, as an engine replay of the runs places
	// them (attachSaves; 0: none, or not replayed).
	saved int
}

// timeline is the successful requests of one backend of one run, sorted
// by first-token time.
type timeline struct {
	name string
	// path is the results file.
	path string
	// backend is the index of its server in the run's backends.
	backend int
	reqs    []request
	// maxSpan is the longest first-token-to-done time and maxWait the
	// longest sent-to-first-token time (s).
	maxSpan, maxWait float64
}

// Input is what Load read from results files.
type Input struct {
	// Files are the results files read.
	Files []string
	// Requests counts successful requests, Failed the failed ones and
	// Canceled those a stopped run cut off after sending them (those it
	// never sent are not counted).
	Requests, Failed, Canceled int
	// NumGPUBlocks is the KV cache size scraped from vllm:cache_config_info
	// (0 when the runs did not scrape it).
	NumGPUBlocks int
	// Model is the model name of the runs ("" for the server's default).
	Model string
	// Server is who served the runs (the header's config.server.owned_by:
	// "llamacpp", "vllm"...; "" when not recorded); Slots and SlotContext
	// are llama.cpp's slots and tokens per slot (0: unknown).
	Server             string
	Slots, SlotContext int
	// Hosts are each file's host CPU figures over its run.
	Hosts []HostLoad
	// Loopback is true when a run's client reached a server over
	// loopback, that is on the same machine.
	Loopback  bool
	timelines []*timeline
}

// Load reads results files. Mixed models across the files, or a file with
// no successful request, are errors.
func Load(paths []string) (*Input, error) {
	in := &Input{Files: paths}
	if len(paths) == 0 {
		return nil, errors.New("calibrate: no results file given")
	}
	for i, p := range paths {
		model, err := in.loadFile(p)
		if err != nil {
			return nil, err
		}
		if i > 0 && model != in.Model {
			return nil, fmt.Errorf("calibrate: %s ran model %q but %s ran %q: fit one model at a time",
				p, model, paths[0], in.Model)
		}
		in.Model = model
	}
	if in.Requests == 0 {
		return nil, fmt.Errorf("calibrate: no successful request in %d results file(s) (%d failed, %d cut off): nothing to fit",
			len(paths), in.Failed, in.Canceled)
	}
	return in, nil
}

// loadFile adds one results file's backends and returns its model.
func (in *Input) loadFile(path string) (string, error) {
	rd, c, err := results.Open(path)
	if err != nil {
		return "", fmt.Errorf("calibrate: %w", err)
	}
	defer c.Close()
	model := rd.Header.Config.Model
	in.serverOf(rd.Header.Config)
	byBackend := map[int]*timeline{}
	for {
		r, ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("calibrate: %w", err)
		}
		if ev != nil {
			if b := int(ev.Values[replay.EventNumGPUBlocks]); b > 0 {
				in.NumGPUBlocks = b
			}
			continue
		}
		if r.ErrClass == results.ErrCanceled {
			if r.Sent > 0 {
				in.Canceled++ // a request held in the client and never sent is no datum at all
			}
			continue
		}
		if !r.OK() || r.FirstToken == 0 || r.Backend < 0 {
			in.Failed++
			continue
		}
		in.Requests++
		tl := byBackend[r.Backend]
		if tl == nil {
			tl = &timeline{name: fmt.Sprintf("%s backend %d", path, r.Backend), path: path, backend: r.Backend}
			byBackend[r.Backend] = tl
		}
		tl.reqs = append(tl.reqs, toRequest(r))
	}
	in.Hosts = append(in.Hosts, hostLoadOf(path, rd.Stop))
	in.Loopback = in.Loopback || anyLoopback(rd.Header.Backends)
	keys := make([]int, 0, len(byBackend))
	for k := range byBackend {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		tl := byBackend[k]
		sort.Slice(tl.reqs, func(i, j int) bool { return tl.reqs[i].first < tl.reqs[j].first })
		for _, q := range tl.reqs {
			tl.maxSpan, tl.maxWait = max(tl.maxSpan, q.done-q.first), max(tl.maxWait, q.first-q.sent)
		}
		in.timelines = append(in.timelines, tl)
	}
	return model, nil
}

// toRequest converts a successful Result.
func toRequest(r *results.Result) request {
	s := func(d time.Duration) float64 { return d.Seconds() }
	prompt := r.PromptTokens
	if prompt == 0 {
		prompt = r.InputTokens
	}
	out := r.CompletionTokens
	if out == 0 {
		out = r.Chunks
	}
	q := request{sent: s(r.Sent), first: s(r.FirstToken), done: s(r.Done), prompt: prompt,
		computed: max(0, prompt-r.CachedTokens), out: out, cv: gapCV(r.Gaps), id: r.ID}
	if r.Server != nil {
		q.promptSecs = r.Server.PromptMS / 1e3
	}
	return q
}

// gapCV returns a robust coefficient of variation of a gap histogram:
// 1.4826 × the median absolute deviation over the median (the standard
// deviation for normal noise), so the long gaps of steps that computed
// other requests' prompts do not count; the histogram's rounding to two
// significant digits is taken out. -1 with fewer than 8 gaps.
func gapCV(bins []results.GapBin) float64 {
	var n int64
	for _, b := range bins {
		n += b.N
	}
	if n < 8 {
		return -1
	}
	med := weightedMedian(bins, func(v int64) float64 { return float64(v) })
	if med <= 0 {
		return -1
	}
	mad := weightedMedian(bins, func(v int64) float64 { return math.Abs(float64(v) - med) })
	sd := 1.4826 * mad
	// Two significant digits: values in [10^k, 10^(k+1)) are rounded to
	// 10^(k−1); uniform rounding error has variance width²/12.
	width := math.Pow(10, math.Floor(math.Log10(med))-1)
	v := sd*sd - width*width/12
	return math.Sqrt(max(0, v)) / med
}

// weightedMedian returns the median of f(V) over the bins, weighted by N.
func weightedMedian(bins []results.GapBin, f func(int64) float64) float64 {
	type vw struct {
		v float64
		n int64
	}
	vs := make([]vw, len(bins))
	var total int64
	for i, b := range bins {
		vs[i] = vw{f(b.V), b.N}
		total += b.N
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].v < vs[j].v })
	var acc int64
	for _, x := range vs {
		acc += x.n
		if 2*acc >= total {
			return x.v
		}
	}
	return 0
}
