package calibrate

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"
)

// Backends lists the backend indexes the runs' successful requests went
// to, in order (a probe of several targets sends to each).
func (in *Input) Backends() []int {
	var bs []int
	for _, tl := range in.timelines {
		if !slices.Contains(bs, tl.backend) {
			bs = append(bs, tl.backend)
		}
	}
	slices.Sort(bs)
	return bs
}

// OfBackend is in restricted to the requests of backend b (Requests
// recounted; the failure counts are the whole input's).
func (in *Input) OfBackend(b int) *Input {
	out := *in
	out.timelines, out.Requests = nil, 0
	for _, tl := range in.timelines {
		if tl.backend == b {
			out.timelines = append(out.timelines, tl)
			out.Requests += len(tl.reqs)
		}
	}
	return &out
}

// ServerFit is the fit of one server's requests alone.
type ServerFit struct {
	// Backend is its index in the runs' backends; Result its fit (nil
	// when it failed, Err saying why).
	Backend int
	Result  *Result
	Err     error
}

// FitServers fits every backend's requests on their own, with opt.
func FitServers(in *Input, opt Options) []ServerFit {
	var out []ServerFit
	for _, b := range in.Backends() {
		res, err := Fit(in.OfBackend(b), opt)
		out = append(out, ServerFit{Backend: b, Result: res, Err: err})
	}
	return out
}

// serversDiffer is how many combined standard errors apart two fitted
// values must be to be called different (about 95 % for normal errors).
const serversDiffer = 2

// WriteServers prints each parameter of every server's fit side by side
// and says which differ by more than serversDiffer combined standard
// errors; names[i] names backend i (its URL).
func WriteServers(w io.Writer, fits []ServerFit, names []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "parameter")
	for _, f := range fits {
		fmt.Fprintf(tw, "\t%s", nameOf(names, f.Backend))
	}
	fmt.Fprintln(tw, "\tservers differ")
	if len(fits) == 0 || fits[0].Result == nil {
		return tw.Flush()
	}
	for j, p := range fits[0].Result.Params {
		fmt.Fprint(tw, p.Name)
		for _, f := range fits {
			fmt.Fprintf(tw, "\t%s", paramText(f, j))
		}
		fmt.Fprintf(tw, "\t%s\n", differText(fits, j))
	}
	for _, f := range fits {
		if f.Err != nil {
			fmt.Fprintf(tw, "%s: %v\n", nameOf(names, f.Backend), f.Err)
		}
	}
	return tw.Flush()
}

// nameOf is names[b], or "backend b".
func nameOf(names []string, b int) string {
	if b >= 0 && b < len(names) {
		return names[b]
	}
	return "backend " + strconv.Itoa(b)
}

// paramText is parameter j of fit f with its standard error.
func paramText(f ServerFit, j int) string {
	if f.Result == nil || j >= len(f.Result.Params) {
		return "n/a"
	}
	p := f.Result.Params[j]
	if !p.Identified {
		return "not fitted"
	}
	if math.IsNaN(p.StdErr) || p.StdErr == 0 {
		return fmt.Sprintf("%.4g %s", p.Value, p.Unit)
	}
	return fmt.Sprintf("%.4g ± %.2g %s", p.Value, p.StdErr, p.Unit)
}

// differText says whether some pair of servers' parameter j differs by
// more than serversDiffer combined standard errors.
func differText(fits []ServerFit, j int) string {
	known := 0
	for a := range fits {
		for b := a + 1; b < len(fits); b++ {
			pa, oka := paramOf(fits[a], j)
			pb, okb := paramOf(fits[b], j)
			if !oka || !okb {
				continue
			}
			known++
			se := math.Hypot(pa.StdErr, pb.StdErr)
			if se > 0 && math.Abs(pa.Value-pb.Value) > serversDiffer*se {
				return fmt.Sprintf("yes (%.1f std errors)", math.Abs(pa.Value-pb.Value)/se)
			}
		}
	}
	if known == 0 {
		return "n/a"
	}
	return "no"
}

// paramOf is parameter j of fit f when it was fitted with a standard
// error.
func paramOf(f ServerFit, j int) (Param, bool) {
	if f.Result == nil || j >= len(f.Result.Params) {
		return Param{}, false
	}
	p := f.Result.Params[j]
	return p, p.Identified && !math.IsNaN(p.StdErr) && p.StdErr > 0
}
