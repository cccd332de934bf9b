package verdict

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Decision is bench's two-stage answer: each policy's capacity under the
// SLO found in virtual time (stage 1, a capacity sweep over seeds), then
// the leaders and the baseline run in real time on the in-process mock
// fleet near the rate where the leaders part (stage 2, SLA attainment
// over seeds), with how well the two stages agree. The HTML and markdown
// reports render it; the terminal prints WriteText.
type Decision struct {
	// Question is what the decision answers, as a sentence.
	Question string
	// Capacity is stage 1's first seed's sweep: its Policies' Steps are
	// the capacity curves. CapacityVerdict ranks the policies by
	// sustained rate over every seed (nil with fewer than two policies).
	Capacity        *Sweep
	CapacityVerdict *Verdict
	// Confirm ranks the confirmed policies by SLA attainment over the
	// seeds of stage 2 (nil when stage 2 did not run).
	Confirm *Verdict
	// ConfirmRate is stage 2's offered rate in model time, req/s;
	// TimeScale how much the mock stretched model time into wall time
	// (stage 2 offered ConfirmRate / TimeScale req/s of wall time, and
	// every latency it measured is TimeScale times the model's).
	ConfirmRate, TimeScale float64
	// Distorted lists stage 2's runs whose timings the machine distorted,
	// "policy (seed K): why" (the distortion guard's thresholds).
	Distorted []string
	// Agreement compares the two stages' rankings of the confirmed
	// policies (zero when stage 2 did not run).
	Agreement Agreement
	// Stage1 and Stage2 are the wall times of the stages.
	Stage1, Stage2 time.Duration
}

// Agreement compares two rankings of the same policies, best first.
type Agreement struct {
	// Stage1Pick and Stage2Pick are each ranking's first policy;
	// SameWinner whether they are one.
	Stage1Pick, Stage2Pick string
	SameWinner             bool
	// Pairs is the number of pairs of policies both rankings hold,
	// Concordant how many of them both order the same way.
	Pairs, Concordant int
	// Tau is Kendall's tau-a, (concordant − discordant) / pairs, in
	// [−1, 1] (NaN with no pair).
	Tau float64
}

// Curves returns the capacity curves of stage 1's first seed, one per
// policy in the order swept (nil without stage 1).
func (d *Decision) Curves() []CapacityCurve {
	if d == nil || d.Capacity == nil {
		return nil
	}
	out := make([]CapacityCurve, 0, len(d.Capacity.Policies))
	for _, p := range d.Capacity.Policies {
		c := CapacityCurve{Policy: p.Policy, Sustained: p.Sustained}
		for _, st := range p.Steps {
			c.Points = append(c.Points, CapacityPoint{Rate: st.Rate, Attainment: st.Summary.SLA.Attainment, Goodput: st.Summary.SLA.Goodput, Pass: st.Pass})
		}
		sortPoints(c.Points)
		out = append(out, c)
	}
	return out
}

// sortPoints orders points by rate (a search visits rates out of order).
func sortPoints(ps []CapacityPoint) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Rate < ps[j-1].Rate; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// Agree compares ranking a (stage 1) with ranking b (stage 2) over the
// policies b holds, both best first.
func Agree(a, b []string) Agreement {
	pos := map[string]int{}
	for i, p := range a {
		pos[p] = i
	}
	var common []string
	for _, p := range b {
		if _, ok := pos[p]; ok {
			common = append(common, p)
		}
	}
	g := Agreement{Tau: math.NaN()}
	if len(a) > 0 && len(b) > 0 {
		g.Stage1Pick, g.Stage2Pick = firstOf(a, common), b[0]
		g.SameWinner = g.Stage1Pick == g.Stage2Pick
	}
	for i := range common {
		for j := i + 1; j < len(common); j++ {
			g.Pairs++
			if pos[common[i]] < pos[common[j]] {
				g.Concordant++
			}
		}
	}
	if g.Pairs > 0 {
		g.Tau = float64(2*g.Concordant-g.Pairs) / float64(g.Pairs)
	}
	return g
}

// firstOf is the first policy of ranking that is in set.
func firstOf(ranking, set []string) string {
	for _, p := range ranking {
		for _, q := range set {
			if p == q {
				return p
			}
		}
	}
	return ""
}

// ranking returns v's policies, best first.
func (v *Verdict) ranking() []string {
	if v == nil {
		return nil
	}
	out := make([]string, len(v.Rows))
	for i, r := range v.Rows {
		out[i] = r.Policy
	}
	return out
}

// Decide fills d's Agreement from its two verdicts.
func (d *Decision) Decide() {
	if d.CapacityVerdict != nil && d.Confirm != nil {
		d.Agreement = Agree(d.CapacityVerdict.ranking(), d.Confirm.ranking())
	}
}

// agreementText is the agreement as one clause.
func (g Agreement) Text() string {
	same := "a different winner"
	if g.SameWinner {
		same = "the same winner"
	}
	return fmt.Sprintf("%s (%s in virtual time, %s in real time); %d of %d pairs ranked alike (Kendall tau %.2f)",
		same, g.Stage1Pick, g.Stage2Pick, g.Concordant, g.Pairs, g.Tau)
}

// stage2Text describes stage 2 in one clause.
func (d *Decision) Stage2Text() string {
	if d.Users() {
		return fmt.Sprintf("%d policies with %.0f closed-loop users on the real-time mock fleet (model time stretched %.3g×, "+
			"think times with it: latencies %.3g× the model's in wall time), %d seeds, %.0f s",
			len(d.Confirm.Rows), d.ConfirmRate, d.TimeScale, d.TimeScale, d.Confirm.Seeds, d.Stage2.Seconds())
	}
	return fmt.Sprintf("%d policies at %.3g req/s of model time on the real-time mock fleet (model time stretched %.3g×: "+
		"%.3g req/s and latencies %.3g× the model's in wall time), %d seeds, %.0f s",
		len(d.Confirm.Rows), d.ConfirmRate, d.TimeScale, d.ConfirmRate/d.TimeScale, d.TimeScale, d.Confirm.Seeds,
		d.Stage2.Seconds())
}

// users reports a decision over concurrent users (its sweep varies users).
func (d *Decision) Users() bool { return d.Capacity != nil && d.Capacity.Vary == VaryUsers }

// unit is what stage 1 counts: "req/s" or "users".
func (d *Decision) Unit() string {
	if d.Users() {
		return "users"
	}
	return "req/s"
}

// WriteText prints the decision for the terminal: the verdict first,
// the question, each stage's ranking and the agreement.
func (d *Decision) WriteText(w io.Writer) {
	v := d.CapacityVerdict
	if v == nil {
		fmt.Fprintf(w, "no verdict: fewer than two policies were swept\n")
		return
	}
	fmt.Fprintf(w, "verdict: %s\n", v.Headline())
	fmt.Fprintf(w, "  question: %s\n", d.Question)
	if v.ProfileNote != "" {
		fmt.Fprintf(w, "  %s\n", v.ProfileNote)
	}
	fmt.Fprintf(w, "stage 1, capacity in virtual time (%d policies, %d seeds, %.0f s):\n", len(v.Rows), v.Seeds, d.Stage1.Seconds())
	for _, r := range v.Rows {
		fmt.Fprintf(w, "  %-18s %s\n", r.Policy, r.Interval(v.Unit))
	}
	if d.Confirm == nil {
		return
	}
	c := d.Confirm
	fmt.Fprintf(w, "stage 2, confirmation: %s\n  %s\n", d.Stage2Text(), c.Headline())
	for _, r := range c.Rows {
		fmt.Fprintf(w, "  %-18s SLA met %s\n", r.Policy, r.Interval(c.Unit))
	}
	fmt.Fprintf(w, "agreement: %s\n", d.Agreement.Text())
	if len(d.Distorted) > 0 {
		fmt.Fprintf(w, "warning: %d real-time runs were distorted by the machine, so stage 2 is weak evidence: %s\n",
			len(d.Distorted), strings.Join(d.Distorted, "; "))
	}
}

// PartingRate is the load where the two best policies of a capacity
// verdict part: the geometric mean of their mean sustained loads (the
// best one's when it is alone or the second sustained nothing).
func (v *Verdict) PartingRate() float64 {
	rate := v.Rows[0].Mean
	if len(v.Rows) > 1 && v.Rows[1].Mean > 0 {
		rate = math.Sqrt(v.Rows[0].Mean * v.Rows[1].Mean)
	}
	return rate
}
