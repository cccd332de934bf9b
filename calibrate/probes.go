package calibrate

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tracebench/tracebench/results"
)

// speedMoved is the change of a phase's server-reported decode time
// between two probes (as a fraction) past which WriteProbes says the
// machine's speed moved: 10 %.
const speedMoved = 0.10

// TermAgreement is one term fitted on each of two probes of the same
// servers.
type TermAgreement struct {
	// Name and Unit are the term's, as calibrate prints it.
	Name, Unit string
	// First and Second are the two fits' values and FirstErr, SecondErr
	// their standard errors, in Unit.
	First, FirstErr, Second, SecondErr float64
	// Sigmas is |First − Second| over √(FirstErr² + SecondErr²).
	Sigmas float64
	// Agree is true when Sigmas ≤ 2.
	Agree bool
	// Adjusted is Sigmas with First scaled by the comparison's
	// SpeedRatio (a time term only; NaN for another or without a ratio),
	// AdjustedAgree whether that is ≤ 2.
	Adjusted      float64
	AdjustedAgree bool
}

// PhaseSpeed is the server's own decode time per token in one phase of
// two probes (results files of the same base name), on one server.
type PhaseSpeed struct {
	// Phase is the files' base name without .jsonl; Backend the server's
	// index in the runs' backends.
	Phase   string
	Backend int
	// First and Second are the medians of predicted_ms / predicted_n
	// over the phase's requests with two or more tokens (llama.cpp's
	// timings; the client's TPOT where the server sent none), in ms per
	// token; N1 and N2 count those requests.
	First, Second float64
	N1, N2        int
}

// Change is Second over First minus 1.
func (p PhaseSpeed) Change() float64 { return p.Second/p.First - 1 }

// ProbeComparison is what two probes of the same servers say about each
// other: the fitted terms side by side, and the server-reported decode
// speed of every phase both have, which shows whether the machine's
// speed moved between them (no engine term describes that).
type ProbeComparison struct {
	Terms  []TermAgreement
	Speeds []PhaseSpeed
	// SpeedRatio is the median over Speeds of Second / First: how much
	// longer the second probe's servers took per token (NaN without
	// Speeds).
	SpeedRatio float64
}

// CompareProbes compares the fits of two probes (first from the files
// firstFiles, second from secondFiles). Terms either fit left out, or
// gave no finite standard error, are not compared.
func CompareProbes(first, second *Result, firstFiles, secondFiles []string) (*ProbeComparison, error) {
	c := &ProbeComparison{}
	other := map[string]Param{}
	for _, p := range second.Params {
		other[p.Name] = p
	}
	for _, a := range first.Params {
		b, ok := other[a.Name]
		if !ok || !comparable(a) || !comparable(b) {
			continue
		}
		t := TermAgreement{Name: a.Name, Unit: a.Unit, First: a.Value, FirstErr: a.StdErr, Second: b.Value, SecondErr: b.StdErr}
		t.Sigmas = apart(a.Value, a.StdErr, b.Value, b.StdErr)
		t.Agree = t.Sigmas <= 2
		c.Terms = append(c.Terms, t)
	}
	s1, err := phaseSpeeds(firstFiles)
	if err != nil {
		return nil, err
	}
	s2, err := phaseSpeeds(secondFiles)
	if err != nil {
		return nil, err
	}
	c.Speeds = pairSpeeds(s1, s2, func(k phaseKey) phaseKey { return k })
	c.adjust()
	return c, nil
}

// apart is how many combined standard errors apart a ± ea and b ± eb
// are: |a − b| / √(ea² + eb²) (NaN where an error is).
func apart(a, ea, b, eb float64) float64 { return math.Abs(a-b) / math.Hypot(ea, eb) }

// pairSpeeds pairs the speeds of each phase and server in first with
// those of match(key) in second, where both timed a request, sorted by
// phase and then server.
func pairSpeeds(first, second map[phaseKey][]float64, match func(phaseKey) phaseKey) []PhaseSpeed {
	var out []PhaseSpeed
	for k, a := range first {
		if b := second[match(k)]; len(a) > 0 && len(b) > 0 {
			out = append(out, PhaseSpeed{Phase: k.phase, Backend: k.backend, First: median(a), Second: median(b), N1: len(a), N2: len(b)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		return x.Phase < y.Phase || (x.Phase == y.Phase && x.Backend < y.Backend)
	})
	return out
}

// mostMoved is the speed of speeds that changed most (the first of
// equals); ok is false when there is none.
func mostMoved(speeds []PhaseSpeed) (worst PhaseSpeed, ok bool) {
	for i, s := range speeds {
		if i == 0 || math.Abs(s.Change()) > math.Abs(worst.Change()) {
			worst = s
		}
	}
	return worst, len(speeds) > 0
}

// timeUnits are the units of terms that scale with the machine's speed.
var timeUnits = map[string]bool{"s": true, "ms": true, "us": true, "ns": true}

// adjust sets SpeedRatio and every term's speed-adjusted comparison.
func (c *ProbeComparison) adjust() {
	c.SpeedRatio = math.NaN()
	if len(c.Speeds) > 0 {
		r := make([]float64, len(c.Speeds))
		for i, s := range c.Speeds {
			r[i] = s.Second / s.First
		}
		c.SpeedRatio = median(r)
	}
	for i := range c.Terms {
		t := &c.Terms[i]
		t.Adjusted = math.NaN()
		if !timeUnits[t.Unit] || math.IsNaN(c.SpeedRatio) {
			continue
		}
		k := c.SpeedRatio
		t.Adjusted = apart(k*t.First, k*t.FirstErr, t.Second, t.SecondErr)
		t.AdjustedAgree = t.Adjusted <= 2
	}
}

// comparable reports whether p has a value and a finite, positive error.
func comparable(p Param) bool {
	return p.Identified && p.StdErr > 0 && !math.IsNaN(p.StdErr) && !math.IsInf(p.StdErr, 0)
}

// phaseKey names a phase's requests on one server.
type phaseKey struct {
	phase   string
	backend int
}

// phaseSpeeds reads the decode time per token (ms) of every successful
// request with two or more tokens, by file base name and server: the
// server's own (llama.cpp's predicted_ms / predicted_n) where the phase
// has it on that server, else the client's TPOT.
func phaseSpeeds(files []string) (map[phaseKey][]float64, error) {
	server, client := map[phaseKey][]float64{}, map[phaseKey][]float64{}
	for _, f := range files {
		phase := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		err := results.EachResult(f, nil, func(r *results.Result) error {
			if !r.OK() {
				return nil
			}
			k := phaseKey{phase, r.Backend}
			if s := r.Server; s != nil && s.PredictedN >= 2 && s.PredictedMS > 0 {
				server[k] = append(server[k], s.PredictedMS/float64(s.PredictedN))
			} else if tp := r.TPOT(); tp > 0 {
				client[k] = append(client[k], float64(tp)/1e6)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
	}
	for k, v := range client {
		if len(server[k]) == 0 {
			server[k] = v
		}
	}
	return server, nil
}

// median is the middle value of v (the mean of the two middle ones).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// WriteProbes prints the comparison: the terms, how many agree, the
// phases' speeds, and what a moved speed means.
func WriteProbes(w io.Writer, c *ProbeComparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "term\tfirst probe\t± std err\tsecond probe\t± std err\tunit\tstd errors apart\tagree")
	agree, adjAgree, adjN := 0, 0, 0
	for _, t := range c.Terms {
		fmt.Fprintf(tw, "%s\t%.4g\t%.3g\t%.4g\t%.3g\t%s\t%.1f\t%v\n", t.Name, t.First, t.FirstErr, t.Second, t.SecondErr, t.Unit, t.Sigmas, t.Agree)
		if t.Agree {
			agree++
		}
		if !math.IsNaN(t.Adjusted) {
			adjN++
			if t.AdjustedAgree {
				adjAgree++
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "probes: %d of %d terms agree within 2 combined standard errors\n", agree, len(c.Terms))
	if adjN > 0 {
		fmt.Fprintf(w, "probes, the first's time terms scaled by the servers' median speed change (×%.3f): %d of %d agree (%s)\n",
			c.SpeedRatio, adjAgree, adjN, adjustedList(c.Terms))
	}
	if len(c.Speeds) == 0 {
		_, err := fmt.Fprintln(w, "server speed by phase: n/a (the servers sent no per-request timings; llama.cpp does)")
		return err
	}
	fmt.Fprintln(w, "\nserver's own decode time per token by phase (median of llama.cpp's predicted_ms / predicted_n):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\tserver\tfirst probe ms\tsecond probe ms\tchange")
	for _, s := range c.Speeds {
		fmt.Fprintf(tw, "%s\t%d\t%.3g (%d)\t%.3g (%d)\t%+.1f %%\n", s.Phase, s.Backend, s.First, s.N1, s.Second, s.N2, 100*s.Change())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	worst, _ := mostMoved(c.Speeds)
	return writeSpeedVerdict(w, worst)
}

// writeSpeedVerdict says whether the machine's speed moved, from the
// phase whose speed changed most.
func writeSpeedVerdict(w io.Writer, worst PhaseSpeed) error {
	if math.Abs(worst.Change()) <= speedMoved {
		_, err := fmt.Fprintf(w, "the servers decoded every phase within %.0f %% of the first probe's speed (most: %s on server %d, %+.1f %%)\n",
			100*speedMoved, worst.Phase, worst.Backend, 100*worst.Change())
		return err
	}
	_, err := fmt.Fprintf(w, "the servers' own decode time moved between the probes (most: %s on server %d, %+.1f %%, phases of the "+
		"same design): the server timed it, so it is not the client; where the phases' designs match, it is the machine's speed "+
		"that moved, which no engine term describes, and the terms cannot agree better than the speed held: probe where the "+
		"speed holds (no other work on the servers' CPUs or GPUs), or take the spread as the profile's accuracy\n",
		worst.Phase, worst.Backend, 100*worst.Change())
	return err
}

// adjustedList names each time term with its speed-adjusted distance.
func adjustedList(terms []TermAgreement) string {
	var parts []string
	for _, t := range terms {
		if !math.IsNaN(t.Adjusted) {
			parts = append(parts, fmt.Sprintf("%s %.1f", t.Name, t.Adjusted))
		}
	}
	return strings.Join(parts, ", ")
}
