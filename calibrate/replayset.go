package calibrate

import (
	"fmt"
	"sort"
	"time"

	"github.com/tracebench/tracebench/results"
)

// Prompts returns the prompts of a results file's requests by request id,
// as the simulated engines would see them (the caller rebuilds them from
// the run's header; the calibrate package does not generate workloads).
type Prompts func(path string) (map[string]Prompt, error)

// Prompt is one request's prompt as sent: its token ids, and the server
// slot it named (llama.cpp's id_slot; nil when the server chose).
type Prompt struct {
	Tokens []int
	Slot   *int
}

// sentReq is one request that reached a server, as a replay of the runs
// on an engine needs it: times on one clock over all the files (the first
// file's start is 0).
type sentReq struct {
	id     string
	sent   time.Duration
	prompt []int
	// out is the tokens generated (completion_tokens, else the streamed
	// count); ok marks a request that finished; a cut request (canceled or
	// timed out) leaves the server at end.
	out int
	ok  bool
	end time.Duration
	// ttft and tpot are the measured server TTFT (first token − sent) and
	// the mean time per output token after the first, in seconds (0 when
	// not measured).
	ttft, tpot float64
	// file indexes the results file the request came from; cached is
	// the prompt tokens the server reported cached.
	file, cached int
	// promptSecs is the server's own prompt time in seconds (llama.cpp's
	// timings.prompt_ms: from the start of its prompt batches to the
	// first token, slot saves excluded); 0 when it sent none.
	promptSecs float64
	// slot is the slot the request named (nil: the server chose).
	slot *int
	// ranOn is the slot the server said it chose (llama.cpp's native
	// API says; its OpenAI-compatible one does not), nil when unknown or
	// named: the replay places the request there, so that its slots
	// follow the server's rather than drifting from them with timing.
	ranOn *int
}

// replaySet is the requests of one backend over every file, by sent time.
type replaySet struct {
	reqs []sentReq
	// kinds classifies each file (by index) for the staged fit.
	kinds map[int]fileKind
	// files are the results files by index (in start order).
	files []string
}

// loadReplay reads the results files into one replay set per backend
// index, placing each file at its header's start time. It also returns
// the files none of whose requests carried the server's own timings.
func loadReplay(files []string, prompts Prompts) ([]*replaySet, []string, error) {
	type filed struct {
		path  string
		start time.Time
	}
	var fs []filed
	for _, f := range files {
		h, err := results.ReadHeader(f)
		if err != nil {
			return nil, nil, err
		}
		fs = append(fs, filed{f, h.Started})
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].start.Before(fs[j].start) })
	var sets []*replaySet
	var untimed []string
	for i, f := range fs {
		ids, err := prompts(f.path)
		if err != nil {
			return nil, nil, fmt.Errorf("calibrate: rebuild the prompts of %s: %w", f.path, err)
		}
		timed, err := readSent(f.path, i, f.start.Sub(fs[0].start), ids, &sets)
		if err != nil {
			return nil, nil, err
		}
		if !timed {
			untimed = append(untimed, f.path)
		}
	}
	paths := make([]string, len(fs))
	for i, f := range fs {
		paths[i] = f.path
	}
	for _, s := range sets {
		sort.SliceStable(s.reqs, func(i, j int) bool { return s.reqs[i].sent < s.reqs[j].sent })
		s.classify()
		s.files = paths
	}
	return sets, untimed, nil
}

// readSent appends the sent requests of one file, offset by off, and
// reports whether any carried the server's own timings.
func readSent(path string, file int, off time.Duration, ids map[string]Prompt, sets *[]*replaySet) (bool, error) {
	timed := false
	err := results.EachResult(path, nil, func(r *results.Result) error {
		if r.Sent == 0 || r.Backend < 0 || r.Done == 0 {
			return nil // never sent
		}
		p, ok := ids[r.ID]
		if !ok || len(p.Tokens) == 0 {
			return nil
		}
		for len(*sets) <= r.Backend {
			*sets = append(*sets, &replaySet{})
		}
		q := sentOf(r, p.Tokens, off)
		q.file, q.cached, q.slot = file, r.CachedTokens, p.Slot
		if p.Slot == nil {
			q.ranOn = r.Slot
		}
		if r.Server != nil {
			timed = true
			q.promptSecs = r.Server.PromptMS / 1e3
		}
		(*sets)[r.Backend].reqs = append((*sets)[r.Backend].reqs, q)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("calibrate: %w", err)
	}
	return timed, nil
}

// sentOf converts one Result, stretching the rebuilt prompt to the
// server's own prompt token count when it tokenised differently.
func sentOf(r *results.Result, p []int, off time.Duration) sentReq {
	q := sentReq{id: r.ID, sent: off + r.Sent, prompt: stretch(p, r.PromptTokens), end: off + r.Done}
	q.out = r.CompletionTokens
	if q.out == 0 {
		q.out = r.OutputTokens
	}
	q.ok = r.OK() && r.FirstToken > 0 && q.out > 0
	if r.FirstToken > 0 {
		q.ttft = (r.FirstToken - r.Sent).Seconds()
		if q.out > 1 && r.Done > r.FirstToken {
			q.tpot = (r.Done - r.FirstToken).Seconds() / float64(q.out-1)
		}
	}
	return q
}

// stretch returns p resized to n tokens (n ≤ 0: unchanged), position i
// taking p's token at i·len(p)/n, so prompts that shared a prefix still
// share one of the same share.
func stretch(p []int, n int) []int {
	if n <= 0 || n == len(p) {
		return p
	}
	out := make([]int, n)
	for i := range out {
		out[i] = p[i*len(p)/n]
	}
	return out
}

// sortBy sorts idx by key, stably.
func sortBy(idx []int, key func(int) time.Duration) {
	sort.SliceStable(idx, func(a, b int) bool { return key(idx[a]) < key(idx[b]) })
}

// fileKind is what a file's requests show best: the cost of a prompt and
// of a slot save (few in flight, nothing cached), the batch growth of
// decode (many in flight), or restores and reuse (cached prompts).
type fileKind int

const (
	kindPrompt fileKind = iota
	kindDecode
	kindCached
)

// fewInFlight is the most requests in flight at once for which a file is
// read as a prompt-cost file.
const fewInFlight = 1

// classify sets each file's kind from its requests.
func (s *replaySet) classify() {
	s.kinds = map[int]fileKind{}
	peak := map[int]int{}
	cached := map[int]bool{}
	for i, q := range s.reqs {
		n := 1
		for j := range s.reqs {
			if j != i && s.reqs[j].file == q.file && s.reqs[j].sent <= q.sent && s.reqs[j].end > q.sent {
				n++
			}
		}
		peak[q.file] = max(peak[q.file], n)
		cached[q.file] = cached[q.file] || q.cached > 0
	}
	for f, n := range peak {
		switch {
		case cached[f]:
			s.kinds[f] = kindCached
		case n > fewInFlight:
			s.kinds[f] = kindDecode
		default:
			s.kinds[f] = kindPrompt
		}
	}
}
