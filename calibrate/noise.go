package calibrate

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/results"
)

// maxQuietResidual is the per-request residual RMS, relative to the mean
// observation, above which a fit is called too noisy to use. Fits of one
// llama-server (b7099, 4 slots, bound to a CPU) on a quiet 2-core machine
// left 22–37 % on TTFT and 27–35 % on the decode gaps; the same probe of
// two servers while the machine's load average was about 20 left
// 129–163 % and 91–201 %.
const maxQuietResidual = 1.0

// Host contention thresholds over a run (the stop line's host figures):
// hypervisor steal above hostStealPct, or a 1-minute load average the
// results package calls contended (results.HostLoadContended), or,
// where the run recorded no load, the machine busier than hostBusyPct
// of all its CPUs. A quiet host shows 0–0.2 % steal. A busy share alone
// is no contention where the servers are CPU engines on the same
// machine: two one-thread llama-servers, each bound to one of two CPUs,
// keep it 96–100 % busy by themselves.
const (
	hostStealPct = 5.0
	hostBusyPct  = 80.0
)

// structureGap is how much larger (in the mean signed residual relative
// to the observation) one group of equations must be than its
// complement for the diagnosis to name the term the group points at.
const structureGap = 0.25

// HostLoad is one results file's host CPU figures over its run, from its
// stop line (NaN when the run did not record them).
type HostLoad struct {
	File              string
	StealPct, BusyPct float64
	// Load1 is the 1-minute load average at the run's end and CPUs the
	// client's CPUs (NaN and 0 when the run did not record them).
	Load1 float64
	CPUs  int
}

// contended says why the host was contended during the run ("" when its
// figures show no contention or were not recorded). With local (the
// servers ran on the client's machine, over loopback) a busy share alone
// is no evidence: the servers' own work is in it.
func (h HostLoad) contended(local bool) string {
	switch {
	case h.StealPct > hostStealPct:
		return fmt.Sprintf("%s: host steal %.1f %% (over %.0f %%)", h.File, h.StealPct, hostStealPct)
	case h.hasLoad():
		if results.HostLoadContended(h.Load1, float64(h.CPUs)) {
			return fmt.Sprintf("%s: load average %.1f on %d CPUs (over %.0f a CPU)", h.File, h.Load1, h.CPUs, results.HostLoadPerCPU)
		}
	case h.BusyPct > hostBusyPct && !local:
		return fmt.Sprintf("%s: host busy %.0f %% of all CPUs (over %.0f %%)", h.File, h.BusyPct, hostBusyPct)
	}
	return ""
}

// hasLoad reports whether the run recorded the host's load average.
func (h HostLoad) hasLoad() bool { return h.CPUs > 0 && !math.IsNaN(h.Load1) }

// noiseWarning says why the fit is too noisy to use ("" when it is not).
// Residuals larger than the observations they explain mean the server's
// times followed something the model has no term for. The diagnosis
// blames the host only when a run's own host figures show contention;
// otherwise it says what the residuals' structure points at (structure:
// missingTerm's for the step fit, phaseTerm's for the engine replay).
func noiseWarning(rs []profile.Residual, structure string, in *Input) string {
	var worst *profile.Residual
	for i := range rs {
		if rs[i].RelRMS > maxQuietResidual && (worst == nil || rs[i].RelRMS > worst.RelRMS) {
			worst = &rs[i]
		}
	}
	if worst == nil {
		return ""
	}
	head := fmt.Sprintf("the fit is too noisy to use: the %s residuals are %.0f %% of the mean observation (over %.0f %%; "+
		"a quiet llama-server leaves 20–40 %%)", worst.Kind, 100*worst.RelRMS, 100*maxQuietResidual)
	if why := hostContention(in); why != "" {
		return head + "; the host was contended (" + why + "): other processes held the server's CPU, so calibrate " +
			"again on a quiet machine with the server bound to a CPU of its own"
	}
	return head + "; " + hostQuiet(in) + structure
}

// hostContention lists the runs whose host figures show contention.
func hostContention(in *Input) string {
	if in == nil {
		return ""
	}
	var why []string
	for _, h := range in.Hosts {
		if w := h.contended(in.Loopback); w != "" {
			why = append(why, w)
		}
	}
	return strings.Join(why, "; ")
}

// hostQuiet says what the runs' host figures showed when none was
// contended.
func hostQuiet(in *Input) string {
	steal, busy, n := 0.0, 0.0, 0
	load, cpus := math.NaN(), 0
	if in != nil {
		for _, h := range in.Hosts {
			if !math.IsNaN(h.StealPct) && !math.IsNaN(h.BusyPct) {
				steal, busy, n = max(steal, h.StealPct), max(busy, h.BusyPct), n+1
			}
			if h.hasLoad() && (math.IsNaN(load) || h.Load1 > load) {
				load, cpus = h.Load1, h.CPUs
			}
		}
	}
	if n == 0 {
		return "the runs recorded no host figures, so the host cannot be judged; "
	}
	figures := fmt.Sprintf("steal at most %.1f %%, busy at most %.0f %%", steal, busy)
	if !math.IsNaN(load) {
		figures += fmt.Sprintf(", load average at most %.1f on %d CPUs", load, cpus)
	} else if busy > hostBusyPct {
		// Only a local run gets here with a busy host (contended).
		return fmt.Sprintf("the host showed no contention by other processes (%s over %d run(s); the servers ran "+
			"on this machine, so their own work is in the busy share, and the runs recorded no load average to "+
			"tell it from other processes'): ", figures, n)
	}
	return fmt.Sprintf("the host was quiet (%s over %d run(s)), so the server's "+
		"own mechanisms, not other processes, shaped the times: ", figures, n)
}

// missingTerm names the term the residuals' structure points at: TTFT
// equations of requests that met others in flight against those alone,
// and decode equations beside other requests' prompts against clean ones.
func missingTerm(rows []row, th [numCols]float64) string {
	if len(rows) == 0 {
		return "compare the residuals of the probe's phases (calibrate --halves) to find the term the model lacks"
	}
	loaded, alone := meanRel(rows, th, func(r row) bool { return rowKind(r) == "ttft" && r.b > 1.05 }),
		meanRel(rows, th, func(r row) bool { return rowKind(r) == "ttft" && r.b <= 1.05 })
	mixed, clean := meanRel(rows, th, func(r row) bool { return !r.ttft && !r.clean }),
		meanRel(rows, th, func(r row) bool { return !r.ttft && r.clean })
	switch {
	case loaded-alone > structureGap:
		return fmt.Sprintf("requests that met others in flight waited %+.0f %% against the model, lone ones %+.0f %%: "+
			"a cost serialised on the engine loop is missing (on llama.cpp the slot-switch save to the host prompt cache, "+
			"--cache-ram, or the wait outside the task queue beyond -np slots plus HTTP workers); the engine "+
			"replay fits them (--engine-replay on; auto uses it for a llama.cpp server)", 100*loaded, 100*alone)
	case mixed-clean > structureGap:
		return fmt.Sprintf("decode steps beside other requests' prompts ran %+.0f %% against the model, clean ones %+.0f %%: "+
			"admissions stall the decoders (prompts placed on the engine loop before the batch, and on llama.cpp a "+
			"slot's save), a term the vLLM-like model lacks; the engine replay fits it (--engine-replay on)", 100*mixed, 100*clean)
	case math.Abs(alone) > structureGap:
		return fmt.Sprintf("even requests alone on their server were %+.0f %% off the model: a per-request cost the model "+
			"lacks (HTTP, tokenisation or a slot switch's save)", 100*alone)
	}
	return "the residuals show no structure the diagnosis knows (load, prompts beside decoders, lone requests): " +
		"compare the probe's halves (calibrate --halves)"
}

// meanRel is the mean signed residual, relative to the observation, of
// the rows keep selects (0 when it selects none).
func meanRel(rows []row, th [numCols]float64, keep func(row) bool) float64 {
	sum, n := 0.0, 0
	for _, r := range rows {
		if !keep(r) || r.y <= 0 {
			continue
		}
		p := r.predict(th)
		sum, n = sum+(r.y-p)/r.y, n+1
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// hostLoadOf reads a run's host figures from its stop line (NaN when
// absent).
func hostLoadOf(file string, stop *results.Stop) HostLoad {
	h := HostLoad{File: filepath.Base(file), StealPct: stop.Figure(results.ExtraHostStealPct),
		BusyPct: stop.Figure(results.ExtraHostBusyPct), Load1: stop.Figure(results.ExtraHostLoad1)}
	if c := stop.Figure(results.ExtraHostCPUs); c >= 1 {
		h.CPUs = int(c)
	}
	return h
}

// anyLoopback reports whether a backend URL names a loopback host.
func anyLoopback(backends []string) bool {
	for _, b := range backends {
		u, err := url.Parse(b)
		if err != nil || u.Host == "" {
			continue
		}
		h := u.Hostname()
		if h == "localhost" {
			return true
		}
		if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
			return true
		}
	}
	return false
}
