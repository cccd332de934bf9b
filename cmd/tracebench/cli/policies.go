package cli

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/policies"
)

func init() { register(newPoliciesCmd) }

// policiesOptions are the flags of `tracebench policies`.
type policiesOptions struct {
	kind  string
	names []string
}

// newPoliciesCmd is `tracebench policies`.
func newPoliciesCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "policies [NAME...]",
		Short: "List every router, filter and queue with its parameters, defaults, needs and source",
		Long: `policies lists the routers (--policy), filters (--filter) and queues (--queue)
tracebench embeds: the rule of each, what it needs from the run (prompt,
scrape, session id, ...), where it comes from, its named presets, and every
parameter with its default and the environment variable that sets it.

Parameters are given with --router-param k=v / --filter-param k=v /
--queue-param k=v, in a --policy-config YAML file, or through the
environment variables listed; a preset is selected with the parameter
preset=NAME.

The mock engine's prefix-cache eviction policies are engine settings, not
client policies: --eviction (tracebench mock) or --mock-set eviction=: lru
(vLLM V1's, every preset's default), lru-longest, lfu; see
docs/mockserver.md.`,
		Args: cobra.ArbitraryArgs,
	}, &policiesOptions{})
}

// bind declares the flags of policies.
func (o *policiesOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.kind, "kind", "all", "which policies: all, router, queue or filter")
}

// run describes the policies args (default: every one).
func (o *policiesOptions) run(cmd *cobra.Command, args []string) error {
	o.names = args
	return runPolicies(cmd.OutOrStdout(), o)
}

// runPolicies writes the selected policies' descriptions to w.
func runPolicies(w io.Writer, o *policiesOptions) error {
	if _, ok := kindFlags[policies.Kind(o.kind)]; !ok && o.kind != "all" {
		return usagef("--kind %q: want all, router, queue or filter", o.kind)
	}
	var specs []policies.Spec
	for _, s := range policies.Specs() {
		if (o.kind == "all" || policies.Kind(o.kind) == s.Kind) && (len(o.names) == 0 || slices.Contains(o.names, s.Name)) {
			specs = append(specs, s)
		}
	}
	for _, n := range o.names {
		if !slices.ContainsFunc(specs, func(s policies.Spec) bool { return s.Name == n }) {
			return usagef("unknown policy %q (known: %s)", n, strings.Join(allPolicyNames(), ", "))
		}
	}
	return writePolicies(w, specs)
}

func allPolicyNames() []string {
	return append(append(policies.Names(policies.KindRouter), policies.Names(policies.KindFilter)...), policies.Names(policies.KindQueue)...)
}

// kindFlags are the flags that name a policy of each kind.
var kindFlags = map[policies.Kind]string{policies.KindRouter: "policy", policies.KindQueue: "queue",
	policies.KindFilter: "filter"}

// writePolicies renders specs as plain text: a header per kind, then one
// block per policy with an aligned parameter table.
func writePolicies(w io.Writer, specs []policies.Spec) error {
	var kind policies.Kind
	for _, s := range specs {
		if s.Kind != kind {
			if kind != "" {
				fmt.Fprintln(w)
			}
			kind = s.Kind
			fmt.Fprintf(w, "%sS (--%s NAME)\n", strings.ToUpper(string(kind)), kindFlags[kind])
		}
		if err := writeSpec(w, s); err != nil {
			return err
		}
	}
	return nil
}

func writeSpec(w io.Writer, s policies.Spec) error {
	fmt.Fprintf(w, "\n%s\n  %s\n", s.Name, s.Doc)
	needs := "nothing beyond the request"
	if len(s.Needs) > 0 {
		needs = strings.Join(s.Needs, ", ")
	}
	fmt.Fprintf(w, "  needs:   %s\n  source:  %s\n", needs, s.Source)
	if len(s.Presets) > 0 {
		fmt.Fprintf(w, "  presets: %s\n", policyPresetList(s.Presets))
	}
	if len(s.Params) == 0 {
		fmt.Fprintln(w, "  parameters: none")
		return nil
	}
	fmt.Fprintln(w, "  parameters:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    NAME\tDEFAULT\tENV\tDESCRIPTION")
	for _, p := range s.Params {
		env := p.Env
		if env == "" {
			env = "-"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", p.Name, p.Default, env, p.Doc)
	}
	return tw.Flush()
}

// policyPresetList renders presets as "name (k=v, ...); ..." in name order.
func policyPresetList(ps map[string]policies.Params) string {
	names := make([]string, 0, len(ps))
	for n := range ps {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		kv := make([]string, 0, len(ps[n]))
		for k, v := range ps[n] {
			kv = append(kv, k+"="+v.String())
		}
		sort.Strings(kv)
		parts[i] = fmt.Sprintf("%s (%s)", n, strings.Join(kv, ", "))
	}
	return strings.Join(parts, "; ")
}
