package replay

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// The decode pick comes from decode and both Backends, the prefill pick
// from prefill and both Backends other than the decode pick; a prompt
// under the threshold is decoded alone; the prefill Backend is in flight
// until PrefillDone.
func TestDispatcherPDPicks(t *testing.T) {
	tests := []struct {
		name        string
		roles       []string
		threshold   int
		input       int
		wantDecode  int
		wantPrefill int // -1: none
	}{
		{"prefill then decode", []string{RolePrefill, RoleDecode}, 0, 10, 1, 0},
		{"both serve either phase, never both of one request", []string{RoleBoth, RoleBoth}, 0, 10, 0, 1},
		{"under the threshold: decode alone", []string{RolePrefill, RoleDecode}, 11, 10, 1, -1},
		{"at the threshold: disaggregated", []string{RolePrefill, RoleDecode}, 10, 10, 1, 0},
		{"a both backend prefills for a decode one", []string{RoleDecode, RoleBoth}, 0, 10, 0, 1},
		{"no other backend can prefill: decode alone", []string{RoleBoth, RoleDecode}, 0, 10, 0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newTestDispatcher(t, "round-robin", policies.Capacity{}, 0, len(tt.roles))
			pre, err := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			o := &PDOptions{Prefill: pre, Roles: tt.roles, Threshold: tt.threshold}
			if err := o.Validate(len(tt.roles)); err != nil {
				t.Fatal(err)
			}
			d.SetPD(o)
			req := &traces.Request{ID: "a", InputTokens: tt.input, OutputTokens: 5}
			d.Arrive(0, req)
			ds, err := d.Pump(0)
			if err != nil || len(ds) != 1 {
				t.Fatalf("pump: %v, %d dispatches", err, len(ds))
			}
			got := ds[0]
			gotPrefill := -1
			if got.Prefill != nil {
				gotPrefill = got.Prefill.Backend
			}
			if got.Backend != tt.wantDecode || gotPrefill != tt.wantPrefill {
				t.Fatalf("decode %d prefill %d, want %d and %d", got.Backend, gotPrefill, tt.wantDecode, tt.wantPrefill)
			}
			if gotPrefill < 0 {
				return
			}
			if n := d.Tracker().Snapshot(0).Backends[gotPrefill].InFlight; n != 1 {
				t.Errorf("prefill backend in flight %d before PrefillDone, want 1", n)
			}
			res := &results.Result{PD: &results.PrefillPhase{Backend: gotPrefill, Done: 5}}
			d.PrefillDone(5, req, res)
			d.Done(9, req, &results.Result{Backend: got.Backend, PD: res.PD})
			for _, b := range d.Tracker().Snapshot(9).Backends {
				if b.InFlight != 0 {
					t.Errorf("backend %d in flight %d after the request, want 0", b.Index, b.InFlight)
				}
			}
		})
	}
}

func TestPDOptionsValidate(t *testing.T) {
	pre, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 2)))
	tests := []struct {
		o    PDOptions
		n    int
		want string
	}{
		{PDOptions{Prefill: pre, Roles: []string{RoleDecode, RoleDecode}}, 2, "without any prefill backend"},
		{PDOptions{Prefill: pre, Roles: []string{RolePrefill}}, 1, "without any decode backend"},
		{PDOptions{Prefill: pre, Roles: []string{"chef"}}, 1, `role "chef"`},
		{PDOptions{Prefill: pre, Threshold: -1}, 1, "threshold"},
		{PDOptions{Prefill: pre, Protocol: "carrier-pigeon"}, 1, "protocol"},
		{PDOptions{}, 1, "no prefill router"},
	}
	for _, tt := range tests {
		err := tt.o.Validate(tt.n)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error naming %s", tt.o, err, tt.want)
		}
	}
	if err := (&PDOptions{Prefill: pre}).Validate(1); err != nil {
		t.Errorf("one backend of role both: %v", err)
	}
}

// A Backend that joins mid-run takes the role RoleOf gives its URL.
func TestDispatcherPDJoinRole(t *testing.T) {
	d := newTestDispatcher(t, "round-robin", policies.Capacity{}, 0, 2)
	pre, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 2)))
	d.SetPD(&PDOptions{Prefill: pre, Roles: []string{RolePrefill, RoleDecode},
		RoleOf: func(url string) string { return map[string]string{"http://p2": RolePrefill}[url] }})
	i, ok := d.Join("http://p2")
	if !ok || d.pd.role(i) != RolePrefill {
		t.Fatalf("joined backend %d (%v): role %q, want prefill", i, ok, d.pd.role(i))
	}
	j, _ := d.Join("http://x")
	if d.pd.role(j) != RoleBoth {
		t.Errorf("a backend RoleOf does not know: role %q, want both", d.pd.role(j))
	}
}
