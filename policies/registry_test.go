package policies

import (
	"github.com/tracebench/tracebench/traces"
	"maps"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// routerNames are the Routers tracebench embeds.
var routerNames = []string{"approx-prefix", "cache-aware", "chwbl", "hashtrie", "least-kv-cache", "least-request", "power-of-two",
	"prefix-cache", "random", "round-robin", "session-affinity", "simhash", "vtc-basic"}

var (
	kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
)

// clearPolicyEnv unsets every environment variable a Spec reads for the
// test's duration.
func clearPolicyEnv(t *testing.T) {
	for _, s := range Specs() {
		for _, p := range s.Params {
			if p.Env != "" {
				t.Setenv(p.Env, "")
				os.Unsetenv(p.Env)
			}
		}
	}
}

func TestRegistryConsistency(t *testing.T) {
	clearPolicyEnv(t)
	if len(duplicates) > 0 {
		t.Errorf("registered twice: %v", duplicates)
	}
	for _, name := range routerNames {
		if !slices.Contains(Names(KindRouter), name) {
			t.Errorf("router %s is not registered", name)
		}
	}
	envs := map[string]string{}
	for _, s := range Specs() {
		t.Run(string(s.Kind)+"/"+s.Name, func(t *testing.T) {
			if !kebab.MatchString(s.Name) || s.Doc == "" || s.Source == "" {
				t.Errorf("name %q must be kebab-case, Doc %q and Source %q non-empty", s.Name, s.Doc, s.Source)
			}
			for _, p := range s.Params {
				if !snake.MatchString(p.Name) || p.Default.String() == "" || p.Doc == "" {
					t.Errorf("param %+v: want a snake_case name, a default and a doc", p)
				}
				if other, ok := envs[p.Env]; ok && p.Env != "" {
					t.Errorf("env %s read by %s and %s", p.Env, other, s.Name)
				}
				envs[p.Env] = s.Name
			}
			build := func(p Params) error {
				rng := rand.New(rand.NewPCG(1, 2))
				switch s.Kind {
				case KindRouter:
					_, err := NewRouter(s.Name, p, rng)
					return err
				case KindFilter:
					_, err := NewFilter(s.Name, p, mustRouter(t, "random", nil, 1))
					return err
				}
				_, err := NewQueue(s.Name, p, rng)
				return err
			}
			if err := build(nil); err != nil {
				t.Errorf("defaults do not build: %v", err)
			}
			for name := range s.Presets {
				if err := build(Params{"preset": traces.ParamString(name)}); err != nil {
					t.Errorf("preset %s does not build: %v", name, err)
				}
			}
		})
	}
}

// TestRoutersRejectEmptyState: every Router errors (and does not panic)
// with no Backends, and answers with a given Backend's Index otherwise.
func TestRoutersRejectEmptyState(t *testing.T) {
	clearPolicyEnv(t)
	req := blockReq("r", 16, 64, 1, 2, 3, 4)
	req.User, req.Session = "u", "s"
	for _, name := range routerNames {
		t.Run(name, func(t *testing.T) {
			r := mustRouter(t, name, nil, 1)
			if r.Name() != name {
				t.Errorf("Name() = %q", r.Name())
			}
			if _, err := r.Pick(req, State{}); err == nil {
				t.Errorf("Pick with no backends: no error")
			}
			bs := fleet(0, 0, 0)
			for i := range bs {
				bs[i].Index += 10 // Index is not the slice position
			}
			ch := mustPick(t, r, req, State{Backends: bs[1:]})
			if ch.Backend != 11 && ch.Backend != 12 {
				t.Errorf("picked Index %d, want 11 or 12", ch.Backend)
			}
		})
	}
}

// TestResolve: Resolve gives every parameter of the policy its effective
// value: default < preset < environment < given, keeping the preset's
// name, and rejects unknown policies, presets and parameters.
func TestResolve(t *testing.T) {
	clearPolicyEnv(t)
	tests := []struct {
		name    string
		kind    Kind
		pol     string
		p       Params
		env     map[string]string
		want    Params
		wantErr string
	}{
		{name: "no parameters", kind: KindRouter, pol: "round-robin", p: Params{}, want: Params{}},
		{name: "defaults", kind: KindQueue, pol: "vtc", p: Params{},
			want: Params{"w_in": traces.ParamFloat(1), "w_out": traces.ParamFloat(2), "event_interval": traces.ParamString("1s"), "weights": traces.ParamString("none")}},
		{name: "preset, environment and given", kind: KindRouter, pol: "prefix-cache",
			p:   Params{"preset": traces.ParamString("aibrix-code"), "std_dev_factor": traces.ParamFloat(3)},
			env: map[string]string{"AIBRIX_PREFIX_CACHE_BLOCK_NUMBER": "1000", "AIBRIX_PREFIX_CACHE_BLOCK_SIZE": "16"},
			want: Params{"preset": traces.ParamString("aibrix-code"), "block_size": traces.ParamString("16"), "block_number": traces.ParamInt(1000), "imbalance_abs_count": traces.ParamInt(8),
				"std_dev_factor": traces.ParamFloat(3), "eviction_duration_mins": traces.ParamInt(20), "tokenizer": traces.ParamString("character"), "index_answers": traces.ParamBool(false)}},
		{name: "unknown policy", kind: KindRouter, pol: "fastest", p: Params{}, wantErr: `unknown router "fastest"`},
		{name: "unknown preset", kind: KindRouter, pol: "prefix-cache", p: Params{"preset": traces.ParamString("x")}, wantErr: `unknown preset "x"`},
		{name: "unknown parameter", kind: KindQueue, pol: "vtc", p: Params{"w": traces.ParamString("1")}, wantErr: `unknown parameter "w"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			got, err := Resolve(tc.kind, tc.pol, tc.p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.EqualFunc(got, tc.want, traces.Value.Equal) {
				t.Errorf("resolved %v, want %v", got, tc.want)
			}
		})
	}
}
