package sim

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/traces"
)

// TestSimulateHasNoHostCPU: a simulated Run runs in virtual time, so the
// machine's CPU time says nothing about it and is not recorded.
func TestSimulateHasNoHostCPU(t *testing.T) {
	r, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 2)))
	q, _ := policies.NewQueue("fcfs", nil, nil)
	stop, err := Run(context.Background(), Options{Common: replay.Common{Source: traces.NewSliceSource(simWorkload()[:20]),
		Router: r, Queue: q},
		Engines: []engine.Config{engine.DefaultConfig()}})
	if err != nil {
		t.Fatal(err)
	}
	for k := range stop.Extra {
		if strings.HasPrefix(k, "host_") {
			t.Errorf("simulated run records %s = %v", k, stop.Extra[k])
		}
	}
}
