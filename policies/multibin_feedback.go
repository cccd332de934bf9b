package policies

import (
	"fmt"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// Done records a finished member of a batch; when the batch's last member
// is Done it runs Algorithm 7 (see multiBin). Requests the Queue did not
// release are ignored.
func (m *multiBin) Done(now time.Duration, req *traces.Request, out Outcome) {
	rec, ok := m.batches[req]
	if !ok {
		return
	}
	delete(m.batches, req)
	m.inflight[rec.backend]--
	if m.inflight[rec.backend] <= 0 {
		delete(m.inflight, rec.backend)
	}
	prompt, output := out.PromptTokens, out.OutputTokens
	if prompt <= 0 {
		prompt = req.InputTokens
	}
	if output <= 0 {
		output = req.OutputTokens
	}
	rec.prompt += prompt
	rec.output += output
	rec.maxOutput = max(rec.maxOutput, output)
	if out.TBT > 0 {
		rec.tbtSum += out.TBT
		rec.tbtN++
	}
	rec.remaining--
	if rec.remaining > 0 {
		return
	}
	d := mbDone{size: rec.running, avgPrompt: float64(rec.prompt) / float64(rec.size),
		avgOutput: float64(rec.output) / float64(rec.size), maxOutput: rec.maxOutput,
		service: now - rec.start, nDecode: m.inflight[rec.backend]}
	if rec.tbtN > 0 {
		d.decodeTBT = rec.tbtSum / time.Duration(rec.tbtN)
	}
	rec.ctrl.update(rec.stats, d)
	m.events.touch()
}

// StateEvents implements StateReporter. The one event, Source
// "multi-bin", carries for every bin i (0-based): bin<i>_lo and bin<i>_hi
// (edges in tokens), bin<i>_b_target, bin<i>_b_mem and bin<i>_b_sla (the
// last batch's sizing, or what the next batch would get before the
// first), bin<i>_b_low and bin<i>_b_high (the controller's interval),
// bin<i>_tau_avg_ms (EMA of decode TBT), bin<i>_b_avg, bin<i>_updates and
// bin<i>_queued; plus k and warmup (1 while the equal-mass edges are not
// known, with one bin [0, 10000)).
func (m *multiBin) StateEvents(now time.Duration) []StateEvent {
	if !m.events.due(now) {
		return nil
	}
	v := map[string]float64{"k": float64(len(m.bins)), "warmup": 0}
	bounds := m.bounds
	if m.warm() {
		v["warmup"] = 1
		bounds = []BinRange{{0, mbLastBinHi}}
	}
	for i := range m.bins {
		s, k, idx := m.state(i)
		view := m.views[i]
		if view == (mbView{}) {
			peek := *k
			view = mbView{bMem: bMem(*s, &m.cfg, idx), bSLA: peek.bSLA(&m.cfg)}
			view.bTarget = min(view.bMem, view.bSLA)
		}
		put := func(key string, x float64) { v[fmt.Sprintf("bin%d_%s", i, key)] = x }
		put("lo", float64(bounds[i].Lo))
		put("hi", float64(bounds[i].Hi))
		put("b_target", float64(view.bTarget))
		put("b_mem", float64(view.bMem))
		put("b_sla", float64(view.bSLA))
		put("b_low", float64(k.bLow))
		put("b_high", float64(k.bHigh))
		put("tau_avg_ms", k.tauAvg*1e3)
		put("b_avg", k.bAvg)
		put("updates", float64(k.updates))
		put("queued", float64(m.bins[i].len()))
	}
	return []StateEvent{{Source: "multi-bin", Values: v}}
}
