package bench

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// simSpec is a small virtual-time Run of router writing into dir.
func simSpec(dir, router string) Spec {
	s := Spec{Workload: DefaultWorkload(), Policy: DefaultPolicy(), Report: metrics.DefaultOptions(),
		Sim: 2, Fleet: new(engine.DefaultConfig()), Results: ResultsPath(dir, router)}
	s.Policy.Router = router
	s.Workload.WorkloadArgs, s.Workload.Rate = traces.Params{{Name: "requests", Value: traces.ParamInt(40)}}, 10
	return s
}

// TestRunErrors: a Spec the caller can fix is a UsageError naming the
// field (its path, in the text and in Field), with no Summary and no
// results file.
func TestRunErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"unknown router", func(s *Spec) { s.Policy.Router = "nope" }, "Spec.Policy.Router"},
		{"unknown queue", func(s *Spec) { s.Policy.Queue = "nope" }, "Spec.Policy.Queue"},
		{"unknown workload", func(s *Spec) { s.Workload.Workload = "nope" }, "Spec.Workload.Workload"},
		{"bad dialect", func(s *Spec) { s.Sim, s.Backends, s.Client.Dialect = 0, []string{"http://127.0.0.1:1"}, "nope" }, "Spec.Client.Dialect"},
		{"bad header", func(s *Spec) { s.Sim, s.Backends, s.Client.Headers = 0, []string{"http://127.0.0.1:1"}, []string{"x"} }, "Spec.Client.Headers"},
		{"time unit without a trace", func(s *Spec) { s.Workload.TimeUnit = "ms" }, "Spec.Workload.TimeUnit"},
		{"filter args without a filter", func(s *Spec) { s.Policy.FilterArgs = policies.Args{{Name: "a", Value: traces.ParamInt(1)}} }, "Spec.Policy.FilterArgs"},
		{"bad shard", func(s *Spec) { s.Workload.Shard = "2/2" }, "Spec.Workload.Shard"},
		{"parameter of another kind", func(s *Spec) {
			s.Policy.Router = "prefix-cache"
			s.Policy.RouterArgs = policies.Args{{Name: "block_number", Value: traces.ParamString("many")}}
		}, "Spec.Policy.RouterArgs"},
		{"prefill parameter of another kind", func(s *Spec) {
			s.PD = &PD{PrefillRouter: "prefix-cache", Roles: []string{"prefill", "decode"},
				PrefillArgs: policies.Args{{Name: "block_number", Value: traces.ParamString("many")}}}
		}, "Spec.PD.PrefillArgs"},
		{"nowhere to send", func(s *Spec) { s.Sim = 0 }, "Spec.Backends"},
		{"negative sim", func(s *Spec) { s.Sim = -1 }, "Spec.Sim"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := simSpec(dir, "round-robin")
			tc.edit(&s)
			sum, err := Run(context.Background(), s)
			var ue UsageError
			if !errors.As(err, &ue) || ue.Field != tc.want || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err %v, want a UsageError naming %s", err, tc.want)
			}
			if sum != nil {
				t.Errorf("Summary %+v, want none", sum)
			}
			if _, err := os.Stat(s.Results); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("results file: %v, want none written", err)
			}
		})
	}
}

// TestRunSim: a virtual-time Run counts every Request in its Summary
// and writes them to its results file, whose header names the policy,
// the simulated backends and the workload.
func TestRunSim(t *testing.T) {
	dir := t.TempDir()
	s := simSpec(dir, "prefix-cache")
	sum, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 40 || sum.Header.Policy != "prefix-cache" {
		t.Errorf("summary: %d ok of policy %q, want 40 of prefix-cache", sum.OK, sum.Header.Policy)
	}
	if filepath.Base(s.Results) != "results-prefix-cache.jsonl" {
		t.Errorf("results path %s", s.Results)
	}
	f, err := os.Open(s.Results)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := results.NewReader(s.Results, f)
	if err != nil {
		t.Fatal(err)
	}
	results := 0
	for {
		r, _, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r != nil {
			results++
		}
	}
	h := rd.Header
	if h.Mode != "sim" || len(h.Backends) != 2 || h.Trace != "workload mixed requests=40 seed 1" || results != 40 {
		t.Errorf("header mode %q backends %v trace %q, %d results", h.Mode, h.Backends, h.Trace, results)
	}
}

// TestRunInterrupted: a Run whose context is already done returns
// ErrInterrupted with a Summary of what it measured.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := Run(ctx, simSpec(t.TempDir(), "round-robin"))
	if !errors.Is(err, ErrInterrupted) || sum == nil {
		t.Errorf("err %v, summary %v; want ErrInterrupted with a Summary", err, sum)
	}
}
