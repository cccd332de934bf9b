package calibrate

import (
	"math"
	"slices"
	"time"

	"github.com/tracebench/tracebench/internal/steplat"
)

// Parameter columns of the design matrix. c_step is folded into β: every
// step a client sees emits a token, so the two are one sum.
const (
	colPrefill   = iota // c_prefill: computed prompt tokens
	colDecode           // c_decode: Σ b over steps
	colBeta             // β: steps
	colBetaGamma        // β·γ: Σ (b−1)/b over steps
	colOverhead         // request overhead: 1 in a TTFT equation
	colAttend           // c_attend: keys attended by the tokens computed
	colSave             // llama.cpp's slot-switch save: saves (save_fixed)
	colSaveTok          // and the tokens they copied (save_per_token)
	numCols
)

// row is one equation: y (seconds) = Σ x[i]·θ[i].
type row struct {
	x    [numCols]float64
	y    float64
	ttft bool
	// server marks a TTFT-kind row whose time is the server's own for the
	// prompt (serverRow): the prompt's step(s) without the request overhead
	// or the wait for the step in progress.
	server bool
	// b is the mean batch of the steps the row covers.
	b float64
	// clean marks a decode row whose steps all had the same batch and no
	// other request's prompt: its chunk gaps show the step jitter alone.
	clean bool
	// cv is the request's chunk-gap coefficient of variation (-1: none).
	cv float64
	// w weighs the row in the fit: 1/y (relative errors), times √steps for
	// a decode row (its mean step is that much surer), times 1/σ of its
	// kind once known.
	w float64
	// promptX is a TTFT row's prompt step(s) alone: its x without the
	// step in progress at arrival nor the request overhead.
	promptX [numCols]float64
	// cluster groups the rows whose errors are not independent: those of
	// one server's requests sent within the same clusterWindow.
	cluster int
}

// weight is the row's weight in the fit (w, or 1 when unset).
func (r row) weight() float64 {
	if r.w == 0 {
		return 1
	}
	return r.w
}

// predict is the row's left side under th: Σ x[i]·θ[i] (seconds).
func (r row) predict(th [numCols]float64) float64 {
	p := 0.0
	for c := range numCols {
		p += r.x[c] * th[c]
	}
	return p
}

// stepModel is the current estimate of the parameters, used to weight
// the steps of a window and to place prompt computations in time; the
// zero value (before the first fit) weighs time uniformly.
type stepModel struct {
	ok bool
	th [numCols]float64
}

// coef is the estimate as the step formula's coefficients, in seconds
// (c_step is folded into β; the fit's β·γ column divided back into γ,
// which is 0 while β is).
func (m stepModel) coef() steplat.Coef {
	c := steplat.Coef{Prefill: max(0, m.th[colPrefill]), Decode: m.th[colDecode], Beta: m.th[colBeta]}
	if c.Beta != 0 {
		c.Gamma = m.th[colBetaGamma] / c.Beta
	}
	return c
}

// step returns the mean step time (s) of a batch of b with no prefill
// (at least 1 µs).
func (m stepModel) step(b float64) float64 {
	if !m.ok {
		return 1
	}
	return max(1e-6, m.coef().Mean(0, b))
}

// prefill returns the time (s) to compute n prompt tokens.
func (m stepModel) prefill(n int) float64 {
	if !m.ok {
		return 0
	}
	return m.coef().Fixed(float64(n))
}

// save returns the time (s) of a slot-switch save of n tokens (0: no
// save).
func (m stepModel) save(n int) float64 {
	if !m.ok || n <= 0 {
		return 0
	}
	return max(0, m.th[colSave]+m.th[colSaveTok]*float64(n))
}

// rowsOf builds the decode and TTFT rows of every timeline; budget is the
// engine's max_num_batched_tokens and maxSeqs its max_num_seqs.
func (in *Input) rowsOf(m stepModel, budget, maxSeqs int) []row {
	var rows []row
	for t, tl := range in.timelines {
		for i := range tl.reqs {
			k := clusterOf(t, time.Duration(tl.reqs[i].sent*float64(time.Second)))
			if r, ok := tl.decodeRow(i, m); ok {
				r.cluster = k
				rows = append(rows, r)
			}
			if r, ok := tl.ttftRow(i, budget, maxSeqs); ok {
				r.cluster = k
				rows = append(rows, r)
				if p, ok := serverRow(r, tl.reqs[i]); ok {
					rows = append(rows, p)
				}
			}
		}
	}
	return rows
}

// overlapping returns the indices of the other requests whose time on the
// backend (sent to done) intersects [a, b]. Requests are sorted by first
// token; one that overlaps has first ≥ a − maxSpan (done ≥ a) and
// first ≤ b + maxWait (sent ≤ b).
func (tl *timeline) overlapping(self int, a, b float64) []int {
	lo, _ := slices.BinarySearchFunc(tl.reqs, a-tl.maxSpan-1e-9, func(q request, t float64) int {
		switch {
		case q.first < t:
			return -1
		case q.first > t:
			return 1
		}
		return 0
	})
	var out []int
	for j := lo; j < len(tl.reqs) && tl.reqs[j].first <= b+tl.maxWait; j++ {
		q := tl.reqs[j]
		if j != self && q.done >= a && q.sent <= b {
			out = append(out, j)
		}
	}
	return out
}

// inBatch returns the interval in which q gets a token every step: from
// the step that emits its first token (one step before first) to done.
func inBatch(q request, step float64) (float64, float64) {
	return q.first - step, q.done
}

// decodeRow is the equation of request i's decode: the time from its
// first token to its last is the sum of the out−1 steps in between.
func (tl *timeline) decodeRow(i int, m stepModel) (row, bool) {
	r := tl.reqs[i]
	steps := float64(r.out - 1)
	if r.out < 2 || r.done <= r.first {
		return row{}, false
	}
	a, b := r.first, r.done
	step := (b - a) / steps
	type edge struct {
		t       float64
		d, dead int
	}
	var edges []edge
	prefill, saves, savedTok := 0.0, 0.0, 0.0
	// Attention: r's own decode tokens sit at positions prompt+1..prompt+S.
	keys := steps*float64(r.prompt) + steps*(steps+1)/2
	for _, j := range tl.overlapping(i, a, b) {
		q := tl.reqs[j]
		keys += decodeKeys(q, a, b)
		s, e := inBatch(q, step)
		if q.first > a && q.first <= b {
			prefill += float64(q.computed)
			keys += prefillKeys(q)
			// The step that computed q's prompt is one step, however long:
			// its prompt time is dead time for the step count.
			// So is the slot save that came before it: the engine loop
			// ran it before that step, every decoder waiting.
			if q.saved > 0 {
				saves, savedTok = saves+1, savedTok+float64(q.saved)
			}
			pf := m.prefill(q.computed) + m.save(q.saved)
			if ds, de := max(s-pf, a), min(s, b); de > ds {
				edges = append(edges, edge{ds, 0, 1}, edge{de, 0, -1})
			}
			s -= pf
		}
		s, e = max(s, a), min(e, b)
		if e > s {
			edges = append(edges, edge{s, 1, 0}, edge{e, -1, 0})
		}
	}
	slices.SortFunc(edges, func(x, y edge) int {
		switch {
		case x.t < y.t:
			return -1
		case x.t > y.t:
			return 1
		}
		return 0
	})
	// Sweep the segments; each gets a share of the steps proportional to
	// its live length over its mean step time.
	type seg struct{ len, b float64 }
	var segs []seg
	t, n, dead := a, 1, 0
	for _, e := range edges {
		if e.t > t {
			if dead == 0 {
				segs = append(segs, seg{e.t - t, float64(n)})
			}
			t = e.t
		}
		n, dead = n+e.d, dead+e.dead
	}
	if b > t {
		segs = append(segs, seg{b - t, float64(n)})
	}
	var wsum float64
	w := make([]float64, len(segs))
	for k, s := range segs {
		w[k] = s.len / m.step(s.b)
		wsum += w[k]
	}
	if wsum == 0 {
		return row{}, false
	}
	var out row
	out.x[colPrefill] = prefill
	out.x[colAttend] = keys * 1e-9
	out.x[colSave], out.x[colSaveTok] = saves, savedTok
	out.x[colBeta] = steps
	for k, s := range segs {
		st := steps * w[k] / wsum
		out.x[colDecode] += st * s.b
		out.x[colBetaGamma] += st * steplat.Growth(s.b)
	}
	out.y = b - a
	out.b = out.x[colDecode] / steps
	// Normalise to one mean step, so long and short requests weigh alike.
	for k := range out.x {
		out.x[k] /= steps
	}
	out.y /= steps
	out.clean, out.cv = len(segs) == 1 && prefill == 0, r.cv
	// Relative errors: a row whose steps are mostly others' prompt work
	// says little about the decode terms, and its attribution of that
	// work to the window is the larger error.
	out.w = math.Sqrt(steps) / out.y
	return out, true
}

// ttftRow is the equation of request i's time to first token: the rest of
// the step in progress when it arrived (half of it on average), then the
// step(s) that computed its prompt, shared with the decoders of the time
// and any prompt finishing in the same step. It is left out when the
// request queued in the engine: the backend already held maxSeqs requests,
// or another prompt got its first token while this one waited.
func (tl *timeline) ttftRow(i, budget, maxSeqs int) (row, bool) {
	r := tl.reqs[i]
	if r.first <= r.sent {
		return row{}, false
	}
	const sameStep = 1e-3 // s: first tokens this close ended the same step
	step := 0.0
	if r.out > 1 {
		step = (r.done - r.first) / float64(r.out-1)
	}
	var busy, bs, bf, inflight int
	prefill := float64(r.computed)
	keys := prefillKeys(r)
	var keysF, keysS float64 // decoders' contexts at the final step and at arrival
	// t0 is the last step boundary seen before the request arrived (another
	// request's first token or end): the step in progress began there.
	t0 := math.Inf(-1)
	for _, j := range tl.overlapping(i, r.sent-max(step, 1e-3), r.first) {
		q := tl.reqs[j]
		for _, b := range []float64{q.first, q.done} {
			if b <= r.sent && b > t0 {
				t0 = b
			}
		}
		if q.done < r.sent {
			continue
		}
		qs := 0.0
		if q.out > 1 {
			qs = (q.done - q.first) / float64(q.out-1)
		}
		s, e := inBatch(q, max(qs, step))
		if q.sent <= r.sent && q.done > r.sent {
			inflight++
			busy = 1
			if s <= r.sent && e > r.sent {
				bs++
				keysS += ctxAt(q, r.sent)
			}
		}
		switch {
		case math.Abs(q.first-r.first) < sameStep:
			prefill += float64(q.computed)
			keys += prefillKeys(q)
			bf++
		case q.first > r.sent && q.first < r.first:
			// Another prompt finished while this one waited: it queued
			// behind it, which the equation does not model.
			return row{}, false
		case s < r.first && e >= r.first:
			bf++
			keysF += ctxAt(q, r.first)
		}
	}
	if inflight >= maxSeqs {
		return row{}, false
	}
	chunks := max(1, int(math.Ceil(float64(r.computed+bf)/float64(max(1, budget)))))
	var out row
	out.ttft = true
	out.x[colPrefill] = prefill
	extra := float64(chunks - 1)
	final := float64(bf + 1)
	out.x[colBeta] = 1
	out.x[colDecode] = final
	out.x[colBetaGamma] = steplat.Growth(final)
	if bf > 0 {
		out.x[colBeta] += extra
		out.x[colDecode] += extra * float64(bf)
		out.x[colBetaGamma] += extra * steplat.Growth(float64(bf))
	}
	keys += float64(chunks) * keysF
	out.promptX = out.x
	out.promptX[colAttend] = keys * 1e-9
	if busy == 1 && bs > 0 {
		// The rest of the step in progress: half a step on average, or,
		// when a boundary was seen less than a step before (a request sent
		// as another finished, as a closed loop does), what is left of it.
		h := 0.5
		if d := r.sent - t0; step > 0 && d >= 0 && d < step {
			h = 1 - d/step
		}
		keys += h * keysS
		out.x[colBeta] += h
		out.x[colDecode] += h * float64(bs)
		out.x[colBetaGamma] += h * steplat.Growth(float64(bs))
	}
	out.x[colOverhead] = 1
	out.x[colAttend] = keys * 1e-9
	if r.saved > 0 && busy == 0 && bf == 0 {
		// The slot's save ran before the prompt's step. The server times
		// its prompt from after it: it is in the TTFT row only, not in
		// promptX. It is a term only where no other request was in
		// flight: with others in flight the row's wait for the step in
		// progress carries the queueing the model lacks, and almost every
		// request of the probe's loaded phases saves, so a save term there
		// took that queueing up (on the recorded CPU fleet a 4.1 ms save
		// beside a 0.2 ms overhead, where lone requests show about 1 ms of
		// overhead). A save still stalls the decoders (decodeRow).
		out.x[colSave], out.x[colSaveTok] = 1, float64(r.saved)
	}
	out.y = r.first - r.sent
	out.b = final
	out.w = 1 / out.y
	return out, true
}

// prefillKeys is the keys the computed prompt tokens of q attend to: the
// token at position p attends to p keys, the cached ones included.
func prefillKeys(q request) float64 {
	c, n := float64(q.prompt-q.computed), float64(q.computed)
	return n*c + n*(n+1)/2
}

// generatedBy is how many tokens q had generated by t (its first at
// first, the rest evenly until done).
func generatedBy(q request, t float64) float64 {
	switch {
	case t < q.first:
		return 0
	case t >= q.done || q.out < 2:
		return float64(q.out)
	}
	return 1 + float64(q.out-1)*(t-q.first)/(q.done-q.first)
}

// ctxAt is q's context (prompt plus generated tokens) at t.
func ctxAt(q request, t float64) float64 { return float64(q.prompt) + generatedBy(q, t) }

// decodeKeys is the keys q's decode tokens computed in (a, b] attend to:
// each of its tokens there sits at its context position.
func decodeKeys(q request, a, b float64) float64 {
	g0, g1 := generatedBy(q, max(a, q.first)), generatedBy(q, min(b, q.done))
	n := g1 - g0
	if n <= 0 {
		return 0
	}
	return n * (float64(q.prompt) + (g0+g1)/2)
}
