package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/traces"
)

// TestWorkloadParamFlag: -p k=v is read into typed parameters, in the
// order given, as the kind the generators declare for k; an unknown key,
// a pair without = and a value of the wrong kind fail at parsing with one
// error naming the flag, the key and the kind expected.
func TestWorkloadParamFlag(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		kinds []traces.ParamKind
		want  string
	}{
		{"good", []string{"-p", "requests=50", "--workload-param", "rate=2.5", "-p", "think=2s", "-p", "ordered=true",
			"-p", "preset=sglang"},
			[]traces.ParamKind{traces.KindInt, traces.KindFloat, traces.KindDuration, traces.KindBool, traces.KindString}, ""},
		{"none", nil, nil, ""},
		{"unknown key", []string{"-p", "size=1"}, nil,
			`invalid argument "size=1" for "-p, --workload-param" flag: unknown parameter "size" (known: `},
		{"no equals", []string{"-p", "requests"}, nil,
			`invalid argument "requests" for "-p, --workload-param" flag: "requests": want key=value`},
		{"bad int", []string{"-p", "requests=1e3"}, nil,
			`invalid argument "requests=1e3" for "-p, --workload-param" flag: parameter requests: "1e3" is not an int (want a whole number such as 300)`},
		{"bad float", []string{"-p", "rate=fast"}, nil,
			`for "-p, --workload-param" flag: parameter rate: "fast" is not a float (want a number such as 0.5)`},
		{"bad duration", []string{"-p", "think=8"}, nil,
			`for "-p, --workload-param" flag: parameter think: "8" is not a duration (want a duration such as 10s)`},
		{"bad bool", []string{"-p", "ordered=yes"}, nil,
			`for "-p, --workload-param" flag: parameter ordered: "yes" is not a bool (want true or false)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bench.Workload
			fs := pflag.NewFlagSet("replay", pflag.ContinueOnError)
			fs.SetOutput(new(strings.Builder))
			flags.BindWorkload(fs, &w, "mixed")
			err := fs.Parse(tc.args)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(w.WorkloadArgs) != len(tc.kinds) {
				t.Fatalf("read %v, want %d parameters", w.WorkloadArgs, len(tc.kinds))
			}
			for i, p := range w.WorkloadArgs {
				if p.Value.Kind() != tc.kinds[i] {
					t.Errorf("%s is a %s, want a %s", p.Name, p.Value.Kind(), tc.kinds[i])
				}
			}
			if got, want := strings.Join(w.WorkloadArgs.Strings(), " "), strings.Join(pairs(tc.args), " "); got != want {
				t.Errorf("recorded as %q, want the texts given %q", got, want)
			}
		})
	}
}

// pairs are the values of the -p flags in args.
func pairs(args []string) []string {
	var out []string
	for i := 1; i < len(args); i += 2 {
		out = append(out, args[i])
	}
	return out
}

// TestSizeGenerator: --max-requests sizes a generated workload only when
// -p requests is not given, after the parameters given; a trace file is
// left alone.
func TestSizeGenerator(t *testing.T) {
	rate := traces.Param{Name: "rate", Value: traces.ParamFloat(5)}
	for _, tc := range []struct {
		w    bench.Workload
		want string
	}{
		{bench.Workload{Workload: "mixed"}, "requests=80"},
		{bench.Workload{Workload: "mixed", WorkloadArgs: traces.Params{rate}}, "rate=5 requests=80"},
		{bench.Workload{Workload: "mixed", WorkloadArgs: traces.Params{{Name: "requests", Value: traces.ParamInt(30)}, rate}},
			"requests=30 rate=5"},
		{bench.Workload{Trace: "t.jsonl", WorkloadArgs: traces.Params{rate}}, "rate=5"},
	} {
		before := tc.w.WorkloadArgs.String()
		w := tc.w
		sizeGenerator(&w, 80)
		if got := strings.Join(w.WorkloadArgs.Strings(), " "); got != tc.want {
			t.Errorf("%v: sized to %q, want %q", before, got, tc.want)
		}
		if tc.w.WorkloadArgs.String() != before {
			t.Errorf("%v: the given parameters changed to %v", before, tc.w.WorkloadArgs)
		}
	}
}

// TestPolicyParamFlags: --router-param, --queue-param and --filter-param
// are read as the kinds the policies declare, with one error naming the
// flag, the key and the kind.
func TestPolicyParamFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--router-param", "block_number=1000", "--router-param", "block_size=auto", "--queue-param", "weights=a=2",
			"--filter-param", "max_loras=2"}, ""},
		{[]string{"--router-param", "nope=1"}, `invalid argument "nope=1" for "--router-param" flag: unknown parameter "nope": no router takes it (known: `},
		{[]string{"--router-param", "block_number=many"},
			`invalid argument "block_number=many" for "--router-param" flag: parameter block_number: "many" is not an int (want a whole number such as 300)`},
		{[]string{"--queue-param", "max_loras=2"}, `for "--queue-param" flag: unknown parameter "max_loras": no queue takes it`},
		{[]string{"--filter-param", "max_loras=two"}, `for "--filter-param" flag: parameter max_loras: "two" is not an int`},
	} {
		var p bench.Policy
		fs := pflag.NewFlagSet("replay", pflag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		flags.BindPolicy(fs, &p, true)
		err := fs.Parse(tc.args)
		if tc.want == "" {
			got := strings.Join(append(append(p.RouterArgs.Strings(), p.QueueArgs.Strings()...), p.FilterArgs.Strings()...), " ")
			if err != nil || got != strings.Join(pairs(tc.args), " ") {
				t.Errorf("%v: read %q, %v", tc.args, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
