package cli

import (
	"testing"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/traces"
)

// TestWorkloadIdent: a generated workload is named with its given
// parameters as sorted k=v pairs, and none when none were given, in the
// run header (bench.OpenSource) and in the trace commands (traceInput.open).
func TestWorkloadIdent(t *testing.T) {
	tests := []struct {
		workload string
		params   []string
		seed     uint64
		want     string
	}{
		{"mixed", nil, 1, "workload mixed seed 1"},
		{"shared-prefix", []string{"system_len=64", "groups=8"}, 1, "workload shared-prefix groups=8 system_len=64 seed 1"},
		{"multi-turn", []string{"requests=20"}, 7, "workload multi-turn requests=20 seed 7"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			params, err := traces.ParseParams(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			src, err := bench.OpenSource(workloadFlags{Workload: tc.workload, WorkloadArgs: params, Seed: tc.seed,
				TimeScale: 1, Arrival: "poisson", CV: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if src.Ident() != tc.want {
				t.Errorf("run header names %q, want %q", src.Ident(), tc.want)
			}
			in := traceInput{Workload: tc.workload, Params: params, Seed: tc.seed}
			_, name, _, closeSrc, err := in.open("")
			if err != nil {
				t.Fatal(err)
			}
			defer closeSrc()
			if name != tc.want {
				t.Errorf("trace commands name %q, want %q", name, tc.want)
			}
		})
	}
}
