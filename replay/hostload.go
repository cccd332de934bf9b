package replay

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/results"
)

// loadAvgPath is where Linux publishes the load averages.
const loadAvgPath = "/proc/loadavg"

// parseLoadAvg reads the 1-minute load average (the mean number of
// threads running or waiting to run, and in uninterruptible sleep) from
// the text of /proc/loadavg ("0.52 0.58 0.59 1/467 12345"). It fails
// when the first field is missing or not a finite number ≥ 0.
func parseLoadAvg(text string) (float64, error) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return 0, errors.New("loadavg: empty")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("loadavg: 1-minute field: %w", err)
	}
	if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("loadavg: 1-minute field %q: want a finite number ≥ 0", f[0])
	}
	return v, nil
}

// readHostLoad reads the machine's 1-minute load average; ok is false
// off Linux or when /proc/loadavg cannot be read or parsed.
func readHostLoad() (float64, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	b, err := os.ReadFile(loadAvgPath)
	if err != nil {
		return 0, false
	}
	v, err := parseLoadAvg(string(b))
	return v, err == nil
}

// loadExtra returns the stop extras of the machine's run queue at the
// end of a Run: host_load1 (the 1-minute load average) and host_cpus
// (the CPUs this process may run on). Busy CPUs alone do not show
// contention: a CPU engine's own threads keep its host busy. More
// threads wanting a CPU than there are CPUs do.
func loadExtra(load float64) map[string]float64 {
	return map[string]float64{results.ExtraHostLoad1: load, results.ExtraHostCPUs: float64(runtime.NumCPU())}
}
