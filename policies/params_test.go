package policies

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// TestParamsAccessors: the accessors read typed values, an int serving a
// float, and a value of another kind or out of range is an error naming
// the parameter.
func TestParamsAccessors(t *testing.T) {
	p := Params{"n": traces.ParamInt(3), "f": traces.ParamFloat(0.5), "d": traces.ParamDuration(time.Minute),
		"b": traces.ParamBool(true), "s": traces.ParamString("auto"), "zero": traces.ParamDuration(0)}
	if n, err := p.Int("n", 1, 4); err != nil || n != 3 {
		t.Errorf("Int = %d, %v", n, err)
	}
	if f, err := p.Float("n", 0, 4); err != nil || f != 3 {
		t.Errorf("Float of an int = %g, %v", f, err)
	}
	if d, err := p.Duration("d"); err != nil || d != time.Minute {
		t.Errorf("Duration = %v, %v", d, err)
	}
	if d, err := p.DurationOrZero("zero"); err != nil || d != 0 {
		t.Errorf("DurationOrZero = %v, %v", d, err)
	}
	if b, err := p.Bool("b"); err != nil || !b {
		t.Errorf("Bool = %t, %v", b, err)
	}
	if s, err := p.OneOf("s", "auto", "none"); err != nil || s != "auto" || p.Text("s") != "auto" {
		t.Errorf("OneOf = %q, %v", s, err)
	}
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"float for int", func() error { _, err := p.Int("f", 0, 9); return err }, `parameter f: "0.5" is not an integer`},
		{"out of range", func() error { _, err := p.Int("n", 4, 9); return err }, "parameter n: 3 is outside [4, 9]"},
		{"string for float", func() error { _, err := p.Float("s", 0, 9); return err }, `parameter s: "auto" is not a number`},
		{"int for duration", func() error { _, err := p.Duration("n"); return err }, `parameter n: "3" is not a positive duration`},
		{"missing bool", func() error { _, err := p.Bool("x"); return err }, `parameter x: "" is not true or false`},
	} {
		if err := tc.err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestParamsJSON: Params write as an object of each value's text, as
// written, and read back as the declared kinds.
func TestParamsJSON(t *testing.T) {
	p, err := Resolve(KindRouter, "cache-aware", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	want := `{"balance_abs":"64","balance_rel":"1.5","cache_threshold":"0.3","eviction_interval":"60s",` +
		`"fallback":"least-load","index_answers":"false","max_tree_chars":"67108864"}`
	if err != nil || string(b) != want {
		t.Fatalf("JSON %s, %v; want %s", b, err, want)
	}
	var back Params
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for k, v := range p {
		if !back[k].Equal(v) || back[k].String() != v.String() {
			t.Errorf("%s read back as %q (%v), want %q (%v)", k, back[k], back[k].Kind(), v, v.Kind())
		}
	}
}

// TestEnvironmentValueTyped: an environment variable is read as its
// parameter's kind; text of another kind is an error naming the
// parameter and the variable, unless the parameter is given.
func TestEnvironmentValueTyped(t *testing.T) {
	clearPolicyEnv(t)
	t.Setenv("AIBRIX_PREFIX_CACHE_BLOCK_NUMBER", "1000")
	p, err := Resolve(KindRouter, "prefix-cache", nil)
	if err != nil || !p["block_number"].Equal(traces.ParamInt(1000)) {
		t.Fatalf("block_number = %q (%v), %v", p["block_number"], p["block_number"].Kind(), err)
	}
	t.Setenv("AIBRIX_PREFIX_CACHE_BLOCK_NUMBER", "many")
	_, err = NewRouter("prefix-cache", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "parameter block_number") ||
		!strings.Contains(err.Error(), "environment variable AIBRIX_PREFIX_CACHE_BLOCK_NUMBER") {
		t.Errorf("bad environment value: %v", err)
	}
	if _, err := NewRouter("prefix-cache", Params{"block_number": traces.ParamInt(10)}, nil); err != nil {
		t.Errorf("given value over a bad environment value: %v", err)
	}
}
