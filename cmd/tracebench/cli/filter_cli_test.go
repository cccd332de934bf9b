package cli

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func asUsage(err error, ue *usageError) bool { return errors.As(err, ue) }

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// TestFilterSlotsContradictionExits: replay with a --filter-param
// max_loras other than the engines' --mock-set max_loras exits as a usage
// error.
func TestFilterSlotsContradictionExits(t *testing.T) {
	code := Run([]string{"replay", "--workload", "shared-prefix", "-p", "adapters=2", "-p", "requests=4", "--sim", "2",
		"--mock-set", "max_loras=1", "--filter", "lora-affinity", "--filter-param", "max_loras=3", "--out",
		t.TempDir() + "/r.jsonl"}, io.Discard, io.Discard)
	if code != ExitUsage {
		t.Errorf("replay with contradicting slots: exit %d, want %d", code, ExitUsage)
	}
}
