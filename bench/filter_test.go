package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

// TestFilterUsage: a filter with a queue that picks backends itself is a
// usage error naming both.
func TestFilterUsage(t *testing.T) {
	_, err := buildPolicy(Policy{Router: "round-robin", Queue: "multi-bin", Filter: "lora-affinity"}, 1)
	var ue UsageError
	if !asUsage(err, &ue) || !containsAll(err.Error(), "Spec.Policy.Filter lora-affinity", "Spec.Policy.Queue multi-bin") {
		t.Errorf("err %v, want a usage error naming Spec.Policy.Filter lora-affinity and Spec.Policy.Queue multi-bin", err)
	}
	if _, err := buildPolicy(Policy{Router: "round-robin", Queue: "fcfs", Filter: "lora-affinity",
		FilterArgs: policies.Args{{Name: "max_loras", Value: traces.ParamInt(0)}}}, 1); !asUsage(err, &ue) {
		t.Errorf("max_loras=0: err %v, want a usage error", err)
	}
}

// TestFilterTakesTheEnginesSlots: the filter's max_loras defaults to the
// engines' adapter slots (Spec.Fleet.LoRA.MaxLoras); a different value is a usage error naming
// both.
func TestFilterTakesTheEnginesSlots(t *testing.T) {
	pf := Policy{Filter: "lora-affinity"}
	got, err := loraSlots(pf, 2)
	if err != nil || !cmp.Equal(got.FilterArgs.Strings(), []string{"max_loras=2"}) {
		t.Errorf("default: %v, %v; want max_loras=2", got.FilterArgs, err)
	}
	pf.FilterArgs = policies.Args{{Name: "max_loras", Value: traces.ParamInt(2)}}
	if _, err := loraSlots(pf, 2); err != nil {
		t.Errorf("agreeing values: %v", err)
	}
	pf.FilterArgs = policies.Args{{Name: "max_loras", Value: traces.ParamInt(4)}}
	var ue UsageError
	if _, err := loraSlots(pf, 2); !asUsage(err, &ue) || !containsAll(err.Error(), "Spec.Policy.FilterArgs max_loras=4", "Spec.Fleet.LoRA.MaxLoras 2") {
		t.Errorf("contradicting values: %v, want a usage error naming both", err)
	}
}

func asUsage(err error, ue *UsageError) bool { return errors.As(err, ue) }

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
