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

func (v *workloadParamsValue) String() string {
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

// policyArgsValue is a repeatable --router-param, --queue-param or
// --filter-param flag: each k=v is read as the kind the policies of kind
// declare for k (policies.ParseParam), so an unknown key or a value of
// the wrong kind fails at parsing, naming the flag, the key and the kind.
type policyArgsValue struct {
	kind policies.Kind
	args *policies.Args
}

func (v *policyArgsValue) String() string {
	if v.args == nil {
		return "[]"
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
