package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports"
)

// costField is the targets file field that prices a backend in $/hour.
const costField = "cost_per_hour"

// targetPrice reads a targets file line's cost_per_hour= field: the
// line's URL, its price in $/hour and whether it has one. A bad price is
// an error naming the field.
func targetPrice(line string) (url string, perHour float64, ok bool, err error) {
	fields := strings.Fields(line)
	if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
		return "", 0, false, nil
	}
	for _, f := range fields[1:] {
		k, v, cut := strings.Cut(f, "=")
		if !cut || k != costField {
			continue
		}
		p, err := metrics.ParsePrice(v)
		if err != nil {
			return "", 0, false, fmt.Errorf("field %s: %w", costField, err)
		}
		perHour, ok = p, true
	}
	return fields[0], perHour, ok, nil
}

// targetsPrice prices the targets from the targets file's cost_per_hour=
// fields (priced keys the file's lines, before DNS names were resolved;
// resolved maps a dns+http:// line to its addresses).
func targetsPrice(file string, priced map[string]float64, resolved map[string][]string) metrics.Price {
	if len(priced) == 0 {
		return metrics.Price{}
	}
	per := map[string]float64{}
	for t, v := range priced {
		if addrs, ok := resolved[t]; ok {
			for _, a := range addrs {
				per[a] = v
			}
			continue
		}
		per[t] = v
	}
	return metrics.Price{PerBackend: per, Source: "targets file " + file}
}

// priceRun gives rs its backends' price when --cost-per-hour gave none:
// the targets file's cost_per_hour= fields for live targets, else the
// engine profile's cost_per_hour (no price when neither has one).
func (m *fleetFlags) priceRun(rs *runSpec, live bool) {
	if rs.Report.Price.Priced() {
		return
	}
	if live {
		rs.Report.Price = m.price
		return
	}
	p, err := resolveProfile(m.profileName())
	if err != nil || p.CostPerHour <= 0 {
		return
	}
	rs.Report.Price = metrics.Price{PerHour: p.CostPerHour, Source: "profile " + p.Name}
}

// parseRank parses bench --rank: "" (the verdict alone) or "cost" with
// an optional ":ATTAINMENT" in (0, 1] (default
// reports.DefaultCostAttainment). It returns 0 for "".
func parseRank(text string) (attainment float64, err error) {
	name, arg, hasArg := strings.Cut(text, ":")
	switch {
	case text == "":
		return 0, nil
	case name != "cost":
		return 0, usagef("--rank %q: want cost or cost:ATTAINMENT", text)
	case !hasArg:
		return reports.DefaultCostAttainment, nil
	}
	attainment, err = strconv.ParseFloat(arg, 64)
	if err != nil || !(attainment > 0 && attainment <= 1) {
		return 0, usagef("--rank %q: attainment %q: want a fraction in (0, 1]", text, arg)
	}
	return attainment, nil
}

// writeCostRank writes, for --rank cost, which policy is cheapest among
// those that met the SLO (nothing without --rank).
func writeCostRank(w io.Writer, rank string, runs []*metrics.Summary) {
	target, err := parseRank(rank)
	if err != nil || target == 0 {
		return
	}
	fmt.Fprintf(w, "%s\n\n", reports.CheapestUnderSLO(runs, target).Text())
}
