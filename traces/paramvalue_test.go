package traces

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// newTextWorkload builds a workload from text parameters read with
// ParseParams (in name order), as the command line reads -p flags.
func newTextWorkload(name string, text map[string]string, seed uint64) (Source, error) {
	pairs := make([]string, 0, len(text))
	for _, k := range slices.Sorted(maps.Keys(text)) {
		pairs = append(pairs, k+"="+text[k])
	}
	p, err := ParseParams(pairs)
	if err != nil {
		return nil, err
	}
	return NewWorkload(name, p, seed)
}

// TestParseParams: text is read by the kind each parameter declares; an
// unknown name, a pair without = and a value not of the kind are errors
// naming the parameter and the kind.
func TestParseParams(t *testing.T) {
	for _, tc := range []struct {
		pair, want string
		kind       ParamKind
	}{
		{"requests=300", "", KindInt},
		{"rate=2.5", "", KindFloat},
		{"rate=6", "", KindFloat},
		{"think=8s", "", KindDuration},
		{"ordered=true", "", KindBool},
		{"suite=overload", "", KindString},
		{"preset=sglang", "", KindString},
		{"size=1", `unknown parameter "size" (known: `, 0},
		{"requests", `"requests": want key=value`, 0},
		{"=1", `"=1": want key=value`, 0},
		{"requests=many", `parameter requests: "many" is not an int (want a whole number such as 300)`, 0},
		{"requests=1.5", `parameter requests: "1.5" is not an int`, 0},
		{"rate=fast", `parameter rate: "fast" is not a float`, 0},
		{"think=soon", `parameter think: "soon" is not a duration (want a duration such as 10s)`, 0},
		{"ordered=yes", `parameter ordered: "yes" is not a bool (want true or false)`, 0},
	} {
		p, err := ParseParam(tc.pair)
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want %q", tc.pair, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.pair, err)
			continue
		}
		if p.Value.Kind() != tc.kind || p.Name+"="+p.Value.String() != tc.pair {
			t.Errorf("%s: read as %s=%s of kind %s, want kind %s", tc.pair, p.Name, p.Value, p.Value.Kind(), tc.kind)
		}
	}
}

// TestParamKindsAgree: a parameter name has one kind in every generator
// declaring it (ParseParam reads a -p flag before the generator is
// known), and every default and preset value reads as its kind.
func TestParamKindsAgree(t *testing.T) {
	kinds := map[string]ParamKind{}
	for _, w := range Workloads() {
		byName := map[string]ParamKind{}
		for _, ps := range w.Params {
			if k, ok := kinds[ps.Name]; ok && k != ps.Kind {
				t.Errorf("%s: parameter %s is a %s, elsewhere a %s", w.Name, ps.Name, ps.Kind, k)
			}
			kinds[ps.Name], byName[ps.Name] = ps.Kind, ps.Kind
			if _, err := ParseValue(ps.Kind, ps.Default); err != nil {
				t.Errorf("%s: default of %s: %v", w.Name, ps.Name, err)
			}
		}
		for pre, set := range w.Presets {
			for k, v := range set {
				if _, err := ParseValue(byName[k], v); err != nil {
					t.Errorf("%s: preset %s: %s: %v", w.Name, pre, k, err)
				}
			}
		}
	}
}

// TestNewWorkloadTyped: the Go API takes typed values, none of them text
// to parse: an int serves a float parameter, a value of another kind is
// an error naming the parameter and both kinds, and the same values as
// parsed text give the same Requests.
func TestNewWorkloadTyped(t *testing.T) {
	typed := Params{{"requests", ParamInt(40)}, {"rate", ParamInt(20)}, {"think", ParamDuration(2 * time.Second)},
		{"jitter", ParamFloat(0.25)}}
	src, err := NewWorkload("mixed", typed, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got, want bytes.Buffer
	if n, err := WriteNative(&got, src); err != nil || n != 40 {
		t.Fatalf("typed: %d requests, %v; want 40", n, err)
	}
	text, err := newTextWorkload("mixed", map[string]string{"requests": "40", "rate": "20", "think": "2s", "jitter": "0.25"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteNative(&want, text); err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("typed and text parameters differ (%v)", err)
	}
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{{"requests", ParamString("40")}}, `workload mixed: parameter requests="40" is a string value, want an int`},
		{Params{{"think", ParamInt(2)}}, `parameter think="2" is an int value, want a duration`},
		{Params{{"requests", ParamInt(0)}}, `parameter requests="0": want an integer >= 1`},
		{Params{{"size", ParamInt(1)}}, `unknown parameter "size"`},
	} {
		if _, err := NewWorkload("mixed", tc.p, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.p.Strings(), err, tc.want)
		}
	}
	if s := typed.With("requests", ParamInt(5)).SortedStrings(); strings.Join(s, " ") != "jitter=0.25 rate=20 requests=5 think=2s" {
		t.Errorf("SortedStrings = %q", s)
	}
}

// FuzzParseParam: ParseParam never panics, and what it reads writes back
// as the text it was given.
func FuzzParseParam(f *testing.F) {
	for _, s := range []string{"requests=300", "rate=2.5", "think=8s", "ordered=true", "suite=overload", "preset=x",
		"size=1", "=", "requests", "rate=NaN", "think=-1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseParam(s)
		if err != nil {
			return
		}
		if got := p.Name + "=" + p.Value.String(); got != s {
			t.Fatalf("ParseParam(%q) writes back as %q", s, got)
		}
	})
}
