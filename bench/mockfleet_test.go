package bench

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestMockFleetValidate: a bad MockFleet value is a UsageError naming
// its field, before any server starts.
func TestMockFleetValidate(t *testing.T) {
	tests := []struct {
		edit  func(*MockFleet)
		field string
	}{
		{func(f *MockFleet) { f.Replicas = 0 }, "MockFleet.Replicas"},
		{func(f *MockFleet) { f.Port, f.Replicas = 65535, 2 }, "MockFleet.Port"},
		{func(f *MockFleet) { f.Server.TimeScale = -1 }, "MockFleet.Server.TimeScale"},
		{func(f *MockFleet) { f.Server.MaxQueue = -1 }, "MockFleet.Server.MaxQueue"},
		{func(f *MockFleet) { f.Server.Faults.ErrorRate = 2 }, "MockFleet.Server.Faults"},
		{func(f *MockFleet) { f.Server.Dialect = "nope" }, "MockFleet.Server.Dialect"},
		{func(f *MockFleet) { f.Server.Engine.BlockSize = 0 }, "MockFleet.Server.Engine"},
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			f := DefaultMockFleet()
			tc.edit(&f)
			_, err := StartMockFleet(context.Background(), f)
			var ue UsageError
			if !errors.As(err, &ue) || ue.Field != tc.field || !strings.HasPrefix(err.Error(), tc.field) {
				t.Errorf("err %v (field %q), want a UsageError on %s", err, ue.Field, tc.field)
			}
		})
	}
	if err := DefaultMockFleet().Validate(); err != nil {
		t.Errorf("DefaultMockFleet: %v", err)
	}
}

// TestMockFleetRun: a Run on a fresh mock fleet goes over loopback HTTP
// in real time; its header names the mock fleet and its stop line the
// servers' step lateness. Setup shifts the engines' seed with the Run's.
func TestMockFleetRun(t *testing.T) {
	dir := t.TempDir()
	s := Spec{Workload: DefaultWorkload(), Policy: DefaultPolicy(), Client: DefaultClient(),
		Report: metrics.DefaultOptions(), Results: ResultsPath(dir, "least-request"), Quiet: true}
	s.Policy.Router = "least-request"
	s.Workload.WorkloadArgs, s.Workload.Rate, s.Workload.Seed = traces.Params{{Name: "requests", Value: traces.ParamInt(20)}}, 40, 3
	f := DefaultMockFleet()
	f.Replicas = 2
	stop, err := f.Setup(1)(context.Background(), &s)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if s.Mode != "mock" || len(s.Backends) != 2 || s.Fleet == nil || s.Fleet.Seed != 3 {
		t.Fatalf("spec mode %q backends %v fleet %+v, want 2 mock backends seeded 3", s.Mode, s.Backends, s.Fleet)
	}
	sum, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 20 || sum.Header.Mode != "mock" {
		t.Errorf("%d ok, mode %q; want 20 on the mock", sum.OK, sum.Header.Mode)
	}
	if sum.Stop.Extra[results.ExtraMockSteps] <= 0 {
		t.Errorf("stop extra %v, want the fleet's step count", sum.Stop.Extra)
	}
}
