package bench

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

// TestPDPrefillArgsJSON: PrefillArgs are written as the list of
// "name=value" texts, in order, and left out when none are given.
func TestPDPrefillArgsJSON(t *testing.T) {
	args, err := policies.ParseArgs(policies.KindRouter, []string{"block_size=16", "preset=llm-d"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pd   PD
		want string
	}{
		{PD{PrefillRouter: "prefix-cache", PrefillArgs: args},
			`{"prefill_router":"prefix-cache","prefill_args":["block_size=16","preset=llm-d"],"roles":null,"threshold":0,"protocol":""}`},
		{PD{PrefillRouter: "round-robin", PrefillArgs: policies.Args{{Name: "block_size", Value: traces.ParamInt(8)}}},
			`{"prefill_router":"round-robin","prefill_args":["block_size=8"],"roles":null,"threshold":0,"protocol":""}`},
		{PD{PrefillRouter: "round-robin"}, `{"prefill_router":"round-robin","roles":null,"threshold":0,"protocol":""}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.pd)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("%+v: JSON %s, want %s", tt.pd, b, tt.want)
		}
		var back PD
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(back.PrefillArgs.Strings(), " "), strings.Join(tt.pd.PrefillArgs.Strings(), " "); got != want {
			t.Errorf("read back %q, want %q", got, want)
		}
	}
}
