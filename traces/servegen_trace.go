package traces

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ServeGen arrival patterns, as named in the pattern column of a
// chunk-N-trace.csv (alibaba/ServeGen servegen/workload_types.py,
// ArrivalPat).
const (
	serveGenGamma   = "Gamma"
	serveGenWeibull = "Weibull"
)

// maxServeGenRate bounds a window's rate (1e6 req/s per client), so one
// corrupt number cannot make the generator draw billions of arrivals.
const maxServeGenRate = 1e6

// maxServeGenWindow bounds a window start (ten years in seconds).
const maxServeGenWindow = 10 * 365 * 86400

// serveGenWindow is one line of a chunk-N-trace.csv: a client's arrival
// process over [Start, next window's Start).
type serveGenWindow struct {
	// Start is the window's start in seconds from the trace's day start.
	Start int64
	// Rate is the client's mean arrival rate in requests per second.
	Rate float64
	// CV is the coefficient of variation of the inter-arrival times, as
	// published (the generator does not use it: Shape encodes it).
	CV float64
	// Pattern is "Gamma", "Weibull", or "" when the client sent nothing.
	Pattern string
	// Shape and Scale parameterise Pattern as scipy's gamma(a, scale) and
	// weibull_min(c, scale); the generator rescales the drawn gaps to the
	// window, so Scale only needs to be positive.
	Shape, Scale float64
	// Line is the 1-based line of the window in its file.
	Line int
}

// serveGenTraceFields names the columns of a chunk-N-trace.csv, which
// has no header line.
var serveGenTraceFields = [6]string{"timestamp", "rate", "cv", "pattern", "shape", "scale"}

// readServeGenTrace parses a chunk-N-trace.csv. The first malformed line
// is a *ParseError naming file, line and field; with skip, malformed
// lines are left out and counted instead.
func readServeGenTrace(r io.Reader, name string, skip bool) ([]serveGenWindow, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var out []serveGenWindow
	skipped, line := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(strings.TrimPrefix(sc.Text(), bom))
		if text == "" {
			continue
		}
		w, err := parseServeGenWindow(text)
		if err == nil && len(out) > 0 && w.Start <= out[len(out)-1].Start {
			err = fieldErr("timestamp", "window start %d s not after the previous window's %d s (sort the file by time)",
				w.Start, out[len(out)-1].Start)
		}
		if err != nil {
			pe := err.(*ParseError)
			pe.File, pe.Line = name, line
			if skip {
				skipped++
				continue
			}
			return nil, skipped, pe
		}
		w.Line = line
		out = append(out, w)
	}
	if err := sc.Err(); err != nil {
		return nil, skipped, fmt.Errorf("read %s: %w", name, err)
	}
	return out, skipped, nil
}

// parseServeGenWindow parses one line: timestamp,rate,cv,pattern,shape,scale.
func parseServeGenWindow(text string) (serveGenWindow, error) {
	cols := strings.Split(text, ",")
	if len(cols) != len(serveGenTraceFields) {
		return serveGenWindow{}, fieldErr("", "%d columns, want 6 (timestamp,rate,cv,pattern,shape,scale)", len(cols))
	}
	var w serveGenWindow
	start, err := strconv.ParseInt(strings.TrimSpace(cols[0]), 10, 64)
	if err != nil || start < 0 || start > maxServeGenWindow {
		return w, fieldErr("timestamp", "%q: want whole seconds from 0 to %d", cols[0], maxServeGenWindow)
	}
	w.Start = start
	w.Pattern = strings.TrimSpace(cols[3])
	idle := w.Pattern == ""
	vals := [5]float64{}
	for _, i := range []int{1, 2, 4, 5} {
		v, err := strconv.ParseFloat(strings.TrimSpace(cols[i]), 64)
		// A window without a pattern sent nothing: its numbers are read
		// (as the reference loader does) but not checked.
		if err != nil || !idle && (math.IsNaN(v) || v < 0 || math.IsInf(v, 0)) {
			return w, fieldErr(serveGenTraceFields[i], "%q: want a non-negative number", cols[i])
		}
		vals[i-1] = v
	}
	w.Rate, w.CV, w.Shape, w.Scale = vals[0], vals[1], vals[3], vals[4]
	if idle {
		w.Rate = 0
		return w, nil
	}
	if w.Rate > maxServeGenRate {
		return w, fieldErr("rate", "%g req/s: want at most %g", w.Rate, float64(maxServeGenRate))
	}
	switch w.Pattern {
	case serveGenGamma, serveGenWeibull:
		if w.Shape <= 0 || w.Shape > 1e6 {
			return w, fieldErr("shape", "%g: a %s shape must be above 0 (and at most 1e6)", w.Shape, w.Pattern)
		}
		if w.Scale <= 0 {
			return w, fieldErr("scale", "%g: a %s scale must be above 0", w.Scale, w.Pattern)
		}
	default:
		return w, fieldErr("pattern", "%q: want Gamma, Weibull or empty", w.Pattern)
	}
	return w, nil
}
