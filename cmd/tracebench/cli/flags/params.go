package flags

import (
	"strings"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

// BindWorkloadParams binds -p/--workload-param to ps.
func BindWorkloadParams(fs *pflag.FlagSet, ps *traces.Params, usage string) {
	fs.VarP((*workloadParamsValue)(ps), "workload-param", "p", usage)
}

// workloadParamsValue is the repeatable -p flag: each k=v is read as
// the kind the generators declare for k (traces.ParseParam), so an
// unknown key or a value of the wrong kind fails at parsing, naming the
// flag, the key and the kind.
type workloadParamsValue traces.Params

// String is "" when no parameter is given, so help shows no default.
func (v *workloadParamsValue) String() string {
	if len(*v) == 0 {
		return ""
	}
	return "[" + strings.Join((*traces.Params)(v).Strings(), ",") + "]"
}

func (v *workloadParamsValue) Set(s string) error {
	p, err := traces.ParseParam(s)
	if err != nil {
		return err
	}
	*v = append(*v, p)
	return nil
}

func (v *workloadParamsValue) Type() string { return "k=v" }

// BindPolicyArgs binds the repeatable flag name to args: each k=v is
// read as the kind the policies of kind declare for k, as --router-param.
func BindPolicyArgs(fs *pflag.FlagSet, args *policies.Args, kind policies.Kind, name, usage string) {
	fs.Var(&policyArgsValue{kind, args}, name, usage)
}

// policyArgsValue is a repeatable --router-param, --queue-param,
// --filter-param or --pd-prefill-param flag: each k=v is read as the kind the policies of kind
// declare for k (policies.ParseParam), so an unknown key or a value of
// the wrong kind fails at parsing, naming the flag, the key and the kind.
type policyArgsValue struct {
	kind policies.Kind
	args *policies.Args
}

// String is "" when no parameter is given, so help shows no default.
func (v *policyArgsValue) String() string {
	if v.args == nil || len(*v.args) == 0 {
		return ""
	}
	return "[" + strings.Join(v.args.Strings(), ",") + "]"
}

func (v *policyArgsValue) Set(s string) error {
	p, err := policies.ParseParam(v.kind, s)
	if err != nil {
		return err
	}
	*v.args = append(*v.args, p)
	return nil
}

func (v *policyArgsValue) Type() string { return "k=v" }
