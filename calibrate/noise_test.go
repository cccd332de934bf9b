package calibrate

import (
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// noiseRow is an equation the model (th of noiseTheta) predicts at 100
// ms and that observed y seconds.
func noiseRow(ttft bool, b float64, clean bool, y float64) row {
	var x [numCols]float64
	x[colOverhead] = 1
	return row{x: x, y: y, ttft: ttft, b: b, clean: clean}
}

var noiseTheta = func() [numCols]float64 {
	var th [numCols]float64
	th[colOverhead] = 0.1
	return th
}()

func TestNoiseWarning(t *testing.T) {
	noisy := []profile.Residual{{Kind: "ttft", RelRMS: 1.85}, {Kind: "tpot", RelRMS: 0.35}}
	quietHost := &Input{Hosts: []HostLoad{{File: "probe-c1.jsonl", StealPct: 0, BusyPct: 6.5}}}
	tests := []struct {
		name string
		rs   []profile.Residual
		rows []row
		in   *Input
		want []string
	}{
		{"quiet fit", []profile.Residual{{Kind: "ttft", RelRMS: 0.3}, {Kind: "tpot", RelRMS: 0.35}}, nil, quietHost, nil},
		{"contended host", noisy, nil, &Input{Hosts: []HostLoad{{File: "a.jsonl", StealPct: 7.5, BusyPct: 30}}},
			[]string{"ttft residuals are 185 %", "host was contended", "a.jsonl: host steal 7.5 %"}},
		{"busy host", noisy, nil, &Input{Hosts: []HostLoad{{File: "b.jsonl", BusyPct: 93}}}, []string{"host busy 93 %"}},
		// Servers on the client's machine: their own work is in the busy
		// share, and without a load average nothing tells it apart.
		{"busy local servers", noisy, nil, &Input{Loopback: true, Hosts: []HostLoad{{File: "f.jsonl", BusyPct: 98}}},
			[]string{"no contention by other processes", "busy at most 98 %", "their own work is in the busy share"}},
		{"queue under load", noisy, []row{noiseRow(true, 1, false, 0.1), noiseRow(true, 3, false, 0.3)}, quietHost,
			[]string{"host was quiet (steal at most 0.0 %, busy at most 6 %", "serialised on the engine loop", "--cache-ram"}},
		{"stalled decoders", noisy, []row{noiseRow(false, 2, true, 0.1), noiseRow(false, 2, false, 0.2)}, quietHost,
			[]string{"admissions stall the decoders"}},
		{"lone requests off", noisy, []row{noiseRow(true, 1, false, 0.2)}, quietHost, []string{"even requests alone"}},
		{"no structure", noisy, []row{noiseRow(true, 1, false, 0.1)}, quietHost, []string{"no structure the diagnosis knows"}},
		{"busy CPU engines", noisy, nil, &Input{Hosts: []HostLoad{{File: "d.jsonl", BusyPct: 98, Load1: 2.4, CPUs: 2}}},
			[]string{"host was quiet", "busy at most 98 %, load average at most 2.4 on 2 CPUs"}},
		{"overloaded host", noisy, nil, &Input{Hosts: []HostLoad{{File: "e.jsonl", BusyPct: 100, Load1: 20, CPUs: 2}}},
			[]string{"host was contended", "e.jsonl: load average 20.0 on 2 CPUs"}},
		{"no host figures", noisy, nil, &Input{Hosts: []HostLoad{{File: "c.jsonl", StealPct: math.NaN(), BusyPct: math.NaN()}}},
			[]string{"cannot be judged", "calibrate --halves"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := noiseWarning(tc.rs, missingTerm(tc.rows, noiseTheta), tc.in)
			if (len(tc.want) == 0) != (got == "") {
				t.Fatalf("noiseWarning = %q, want it to contain %q", got, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("noiseWarning = %q\nwant it to contain %q", got, w)
				}
			}
			blame := tc.name == "contended host" || tc.name == "busy host" || tc.name == "overloaded host"
			if strings.Contains(got, "host was contended") != blame {
				t.Errorf("blames the host = %v in case %q, want %v: %q", !blame, tc.name, blame, got)
			}
		})
	}
}

func TestAnyLoopback(t *testing.T) {
	tests := []struct {
		backends []string
		want     bool
	}{
		{[]string{"http://127.0.0.1:8080"}, true},
		{[]string{"http://10.0.0.2:8000", "http://localhost:8001"}, true},
		{[]string{"http://[::1]:8000"}, true},
		{[]string{"http://10.0.0.2:8000", "sim-0"}, false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := anyLoopback(tc.backends); got != tc.want {
			t.Errorf("anyLoopback(%q) = %v, want %v", tc.backends, got, tc.want)
		}
	}
}

func TestTermOfPhase(t *testing.T) {
	tests := []struct{ file, want string }{
		{"/x/probe-ladder.jsonl", "slot-switch save"},
		{"probe-restore.jsonl", "host-cache restore"},
		{"probe-shared-c4.jsonl", "prefix reuse"},
		{"probe-d4.jsonl", "decode batch"},
		{"probe-c1.jsonl", "prompt cost"},
		{"probe-saturated.jsonl", "outside the task queue"},
		{"live.jsonl", "what the run live did"},
	}
	for _, tc := range tests {
		if got := termOfPhase(phaseOf(tc.file)); !strings.Contains(got, tc.want) {
			t.Errorf("termOfPhase(phaseOf(%q)) = %q, want it to contain %q", tc.file, got, tc.want)
		}
	}
}
