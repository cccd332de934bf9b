package policies

import (
	"github.com/tracebench/tracebench/traces"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePolicyConfig(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    PolicyConfig
		wantErr string
	}{
		{name: "empty file", yaml: "",
			want: PolicyConfig{Router: PolicySection{Params: Params{}}, Queue: PolicySection{Params: Params{}}}},
		{name: "router and queue", yaml: "router: {name: prefix-cache, params: {block_size: 64, std_dev_factor: 1.5}}\nqueue:\n  name: fcfs\n",
			want: PolicyConfig{
				Router: PolicySection{Name: "prefix-cache", Params: Params{"block_size": traces.ParamInt(64), "std_dev_factor": traces.ParamFloat(1.5)}},
				Queue:  PolicySection{Name: "fcfs", Params: Params{}}}},
		{name: "preset key", yaml: "router:\n  name: prefix-cache\n  preset: aibrix-code\n",
			want: PolicyConfig{Router: PolicySection{Name: "prefix-cache", Params: Params{"preset": traces.ParamString("aibrix-code")}}, Queue: PolicySection{Params: Params{}}}},
		{name: "params without a name are kept unchecked", yaml: "router:\n  params:\n    anything: 20m\n",
			want: PolicyConfig{Router: PolicySection{Params: Params{"anything": traces.ParamString("20m")}}, Queue: PolicySection{Params: Params{}}}},
		{name: "unknown top key", yaml: "routers: {}\n", wantErr: "p.yaml line 1: routers: unknown key"},
		{name: "unknown router", yaml: "router:\n  name: fastest\n", wantErr: `p.yaml line 2: router.name: unknown router "fastest"`},
		{name: "unknown parameter", yaml: "router:\n  name: prefix-cache\n  params:\n    blocksize: 4\n",
			wantErr: `p.yaml line 4: router.params.blocksize: router prefix-cache: unknown parameter "blocksize"`},
		{name: "bad value", yaml: "router:\n  name: prefix-cache\n  params:\n    block_size: 4\n    block_number: lots\n",
			wantErr: `p.yaml line 5: router.params.block_number: router prefix-cache: parameter block_number: "lots" is not an integer`},
		{name: "unknown preset", yaml: "router:\n  name: chwbl\n  preset: fast\n", wantErr: `p.yaml line 3: router.preset:`},
		{name: "nested value", yaml: "router:\n  params:\n    block_size: [1, 2]\n", wantErr: "p.yaml line 3: router.params.block_size: want a single value"},
		{name: "null value", yaml: "router:\n  params:\n    block_size:\n", wantErr: "p.yaml line 3: router.params.block_size: want a single value"},
		{name: "duplicate param", yaml: "router:\n  preset: aibrix-code\n  params: {preset: x}\n", wantErr: "router.params.preset: given twice"},
		{name: "section not a mapping", yaml: "queue: vtc\n", wantErr: "p.yaml line 1: queue: want a mapping"},
		{name: "not yaml", yaml: "router: [\n", wantErr: "policy config p.yaml: yaml:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePolicyConfig("p.yaml", []byte(tc.yaml))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParsePolicyConfig(f *testing.F) {
	f.Add([]byte("router: {name: prefix-cache, params: {block_size: 64}}\nqueue: {name: fcfs}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParsePolicyConfig("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "policy config fuzz.yaml") {
				t.Errorf("error without the file name: %v", err)
			}
			return
		}
		if c.Router.Params == nil || c.Queue.Params == nil {
			t.Errorf("nil params in %+v", c)
		}
	})
}
