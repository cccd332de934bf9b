package policies

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/traces"
)

// TestParamKindsDeclared: every policy parameter declares a kind, and
// its default and every preset value have it.
func TestParamKindsDeclared(t *testing.T) {
	for _, s := range Specs() {
		kinds := map[string]traces.ParamKind{}
		for _, ps := range s.Params {
			kinds[ps.Name] = ps.Kind
			if ps.Kind == 0 {
				t.Errorf("%s %s: parameter %s declares no kind", s.Kind, s.Name, ps.Name)
				continue
			}
			if got := ps.Default.Kind(); got != ps.Kind {
				t.Errorf("%s %s: default %q of %s %s", s.Kind, s.Name, ps.Default, ps.Name, traces.KindMismatch(got, ps.Kind))
			}
		}
		for pre, set := range s.Presets {
			for k, v := range set {
				if want, ok := kinds[k]; !ok || v.Kind() != want {
					t.Errorf("%s %s: preset %s: %s=%q %s", s.Kind, s.Name, pre, k, v, traces.KindMismatch(v.Kind(), want))
				}
			}
		}
	}
}

// TestParseParam: a --router-param, --queue-param or --filter-param value
// is read as the kind the policies of that kind declare; where two
// declare different kinds (block_size), as the first it is of.
func TestParseParam(t *testing.T) {
	for _, tc := range []struct {
		kind       Kind
		pair, want string
		got        traces.ParamKind
	}{
		{KindRouter, "block_number=1000", "", traces.KindInt},
		{KindRouter, "std_dev_factor=1.5", "", traces.KindFloat},
		{KindRouter, "count_new_request=true", "", traces.KindBool},
		{KindRouter, "block_size=16", "", traces.KindInt},
		{KindRouter, "block_size=auto", "", traces.KindString},
		{KindRouter, "preset=aibrix-code", "", traces.KindString},
		{KindQueue, "weights=alice=2,bob=1", "", traces.KindString},
		{KindFilter, "max_loras=2", "", traces.KindInt},
		{KindRouter, "block_number=many", `parameter block_number: "many" is not an int (want a whole number such as 300)`, 0},
		{KindRouter, "std_dev_factor=x", `parameter std_dev_factor: "x" is not a float`, 0},
		{KindRouter, "nope=1", `unknown parameter "nope": no router takes it (known: `, 0},
		{KindFilter, "block_number=1", `unknown parameter "block_number": no filter takes it`, 0},
		{KindQueue, "novalue", `"novalue": want key=value`, 0},
	} {
		p, err := ParseParam(tc.kind, tc.pair)
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: error %v, want %q", tc.kind, tc.pair, err, tc.want)
			}
			continue
		}
		if err != nil || p.Value.Kind() != tc.got || p.Name+"="+p.Value.String() != tc.pair {
			t.Errorf("%s %s: read %s=%s of kind %s (%v), want kind %s", tc.kind, tc.pair, p.Name, p.Value, p.Value.Kind(), err, tc.got)
		}
	}
}

// TestArgsParams: typed Args become the policy's Params with no text to
// split: an int serves a float, any value a string parameter, and a
// value of another kind is an error naming the policy, the parameter and
// both kinds; the results header's JSON form reads back.
func TestArgsParams(t *testing.T) {
	a := Args{{Name: "block_size", Value: traces.ParamInt(4)}, {Name: "std_dev_factor", Value: traces.ParamInt(1)},
		{Name: "block_number", Value: traces.ParamInt(1000)}}
	p, err := a.Params(KindRouter, "prefix-cache")
	if err != nil || !p["block_size"].Equal(traces.ParamInt(4)) || !p["std_dev_factor"].Equal(traces.ParamInt(1)) ||
		!p["block_number"].Equal(traces.ParamInt(1000)) {
		t.Fatalf("Params = %v, %v", p, err)
	}
	if _, err := NewRouter("prefix-cache", p, nil); err != nil {
		t.Fatalf("NewRouter: %v", err)
	}
	bad := Args{{Name: "block_number", Value: traces.ParamFloat(1.5)}}
	if _, err := bad.Params(KindRouter, "prefix-cache"); err == nil ||
		!strings.Contains(err.Error(), `router prefix-cache: parameter block_number="1.5" is a float value, want an int`) {
		t.Errorf("float for an int: %v", err)
	}
	b, err := json.Marshal(a)
	if err != nil || string(b) != `["block_size=4","std_dev_factor=1","block_number=1000"]` {
		t.Fatalf("JSON %s, %v", b, err)
	}
	var back Args
	if err := json.Unmarshal(b, &back); err != nil || back.String() != a.String() {
		t.Errorf("read back %v, %v; want %v", back, err, a)
	}
	if got := ArgsOf(KindRouter, "prefix-cache", map[string]string{"filter": "x", "filter.max_loras": "2", "block_number": "9"}).Strings(); strings.Join(got, " ") != "block_number=9 filter.max_loras=2 filter=x" {
		t.Errorf("ArgsOf = %q", got)
	}
}

// FuzzParseParam: ParseParam never panics, and what it reads writes back
// as the text it was given.
func FuzzParseParam(f *testing.F) {
	for _, s := range []string{"block_number=1000", "block_size=auto", "block_size=16", "std_dev_factor=1.5",
		"count_new_request=true", "weights=a=2,b=1", "nope=1", "=", "novalue", "max_loras=-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, kind := range []Kind{KindRouter, KindQueue, KindFilter} {
			p, err := ParseParam(kind, s)
			if err != nil {
				continue
			}
			if got := p.Name + "=" + p.Value.String(); got != s {
				t.Fatalf("ParseParam(%s, %q) writes back as %q", kind, s, got)
			}
		}
	})
}
