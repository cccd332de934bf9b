package replay

import (
	"bufio"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/results"
)

// procStatPath is where Linux publishes the CPU time counters.
const procStatPath = "/proc/stat"

// hostCPU is the machine's aggregate CPU time (the "cpu" line of
// /proc/stat, summed over every CPU) in USER_HZ ticks (normally 100 a
// second per CPU).
type hostCPU struct {
	// Total is user + nice + system + idle + iowait + irq + softirq +
	// steal, the fields present. guest and guest_nice are left out:
	// the kernel already counts them in user and nice.
	Total uint64
	// Idle is idle + iowait: time with nothing to run.
	Idle uint64
	// Steal is time the hypervisor ran other guests while this one had
	// work; meaningful only when HasSteal.
	Steal uint64
	// HasSteal is false when the line has no steal field (kernels
	// before 2.6.11).
	HasSteal bool
}

// cpuFields is how many leading fields of the "cpu" line make up Total
// (user … steal); the first four (user nice system idle) are required.
const (
	cpuFields    = 8
	cpuMinFields = 4
	stealField   = 7
)

// parseProcStat reads the aggregate "cpu" line from the text of
// /proc/stat. It fails when there is no such line, when it has fewer
// than four fields, when a field is not a non-negative integer, or when
// the fields overflow 64 bits.
func parseProcStat(text string) (hostCPU, error) {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "cpu" {
			continue
		}
		return parseCPULine(f[1:])
	}
	return hostCPU{}, errors.New("proc stat: no aggregate cpu line")
}

// parseCPULine adds up the counters of one "cpu" line (fields after the
// label).
func parseCPULine(f []string) (hostCPU, error) {
	if len(f) < cpuMinFields {
		return hostCPU{}, fmt.Errorf("proc stat: cpu line has %d fields, want at least %d", len(f), cpuMinFields)
	}
	var h hostCPU
	for i, s := range f {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return hostCPU{}, fmt.Errorf("proc stat: cpu field %d: %w", i+1, err)
		}
		if i >= cpuFields {
			continue
		}
		var carry uint64
		if h.Total, carry = bits.Add64(h.Total, v, 0); carry != 0 {
			return hostCPU{}, errors.New("proc stat: cpu counters overflow")
		}
		switch i {
		case 3, 4:
			h.Idle += v // never overflows: Idle ≤ Total
		case stealField:
			h.Steal, h.HasSteal = v, true
		}
	}
	return h, nil
}

// readHostCPU reads the machine's CPU counters; ok is false off Linux or
// when /proc/stat cannot be read or parsed.
func readHostCPU() (hostCPU, bool) {
	if runtime.GOOS != "linux" {
		return hostCPU{}, false
	}
	return readHostCPUFile(procStatPath)
}

// readHostCPUFile reads the counters from the first line of the file at
// path (where /proc/stat keeps the aggregate line); ok is false when it
// cannot be read or parsed.
func readHostCPUFile(path string) (hostCPU, bool) {
	f, err := os.Open(path)
	if err != nil {
		return hostCPU{}, false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return hostCPU{}, false
	}
	h, err := parseProcStat(line)
	return h, err == nil
}

// hostExtra returns the stop extras for the CPU time between a and b:
// host_busy_pct and, when both carry steal, host_steal_pct, each a
// percentage of all CPU time that passed. It returns nil when no CPU
// time passed or a counter went backwards.
func hostExtra(a, b hostCPU) map[string]float64 {
	if b.Total <= a.Total || b.Idle < a.Idle || b.Steal < a.Steal && a.HasSteal && b.HasSteal {
		return nil
	}
	total := float64(b.Total - a.Total)
	idle := float64(b.Idle - a.Idle)
	var steal float64
	out := map[string]float64{}
	if a.HasSteal && b.HasSteal {
		steal = float64(b.Steal - a.Steal)
		out[results.ExtraHostStealPct] = 100 * steal / total
	}
	out[results.ExtraHostBusyPct] = 100 * max(total-idle-steal, 0) / total
	return out
}
