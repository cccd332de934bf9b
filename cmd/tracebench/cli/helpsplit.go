package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpWidth is the width, in columns, of --help's lines: the
// description and the flag lines wrap to it.
const helpWidth = 100

// helpAllFlag is the flag that lists every flag of a command; --help
// lists the everyday ones only, so it fits one screen.
const helpAllFlag = "help-all"

// runEveryday are the flags --help lists for bench, replay and sweep:
// the ones most runs set. Their other flags are listed by --help-all and
// in docs/cli.md.
var runEveryday = []string{"help", helpAllFlag,
	"trace", "workload", "workload-param", "rate", "time-scale", "max-requests", "seed",
	"queue", "router-param", "policy-config",
	"target", "model", "mock", "sim", "mock-profile", "mock-set",
	"out", "slo-ttft", "slo-tpot"}

// everydayFlags are, per command, the flags its --help lists.
var everydayFlags = map[string]map[string]bool{
	// bench's description takes half the screen: the flags of a verdict.
	"bench": flagSet([]string{"help", helpAllFlag}, "trace", "workload", "rate", "max-requests", "seed", "seeds",
		"policies", "quick", "target", "mock", "sim", "mock-profile", "mock-set", "out", "slo-ttft", "slo-tpot"),
	"replay": flagSet(runEveryday, "policy", "format", "api", "dialect", "scrape",
		"duration", "max-inflight", "queue-param", "mock-blocks"),
	"sweep": flagSet(runEveryday, "policies", "vary", "rates", "max-runs", "attainment", "jobs"),
	"plan": flagSet([]string{"help", helpAllFlag}, "trace", "workload", "workload-param", "rate", "users",
		"max-requests", "policies", "profile", "mock-set", "slo-ttft", "slo-tpot", "cost-per-hour", "max-replicas",
		"seeds", "pd-size", "check", "out"),
	"gateway": flagSet([]string{"help", helpAllFlag}, "target", "policy", "queue", "filter", "router-param",
		"policy-config", "backend-capacity", "host", "port", "out", "api-key", "grace", "max-queue", "mock", "scrape"),
	"mock": flagSet([]string{"help", helpAllFlag}, "replicas", "host", "port", "profile", "model", "dialect",
		"time-scale", "kv-events", "seed", "max-num-seqs", "num-gpu-blocks", "max-model-len"),
}

// flagSet returns the set of names in common and more.
func flagSet(common []string, more ...string) map[string]bool {
	set := map[string]bool{}
	for _, n := range append(append([]string(nil), common...), more...) {
		set[n] = true
	}
	return set
}

// splitHelp gives cmd a --help-all flag, makes its --help list the
// everyday flags only (with a line counting the others), wraps its help
// to helpWidth columns, and sends flag deprecation lines to errOut.
func splitHelp(cmd *cobra.Command, errOut io.Writer) {
	cmd.Flags().SetOutput(errOut)
	wrapHelp(cmd)
	cmd.Flags().Bool(helpAllFlag, false, "list every flag, not only the everyday ones")
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if all, _ := c.Flags().GetBool(helpAllFlag); all {
				return c.Help()
			}
			return run(c, args)
		}
	}
	help := cmd.HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		if all, _ := c.Flags().GetBool(helpAllFlag); all {
			help(c, args)
			return
		}
		more := hideOccasional(c.Flags(), everydayFlags[c.Name()])
		help(c, args)
		unhide(more)
		if len(more) > 0 {
			fmt.Fprintf(c.OutOrStdout(), "\n%d more flags: tracebench %s --help-all (or docs/cli.md)\n", len(more), c.Name())
		}
	})
}

// hideOccasional hides the visible flags of fs not in everyday and
// returns them.
func hideOccasional(fs *pflag.FlagSet, everyday map[string]bool) []*pflag.Flag {
	var hidden []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && !everyday[f.Name] {
			f.Hidden = true
			hidden = append(hidden, f)
		}
	})
	return hidden
}

// unhide shows flags again.
func unhide(flags []*pflag.Flag) {
	for _, f := range flags {
		f.Hidden = false
	}
}

// wrapHelp wraps cmd's description and flag lines to helpWidth columns:
// a flag's usage continues under its own column.
func wrapHelp(cmd *cobra.Command) {
	lines := strings.Split(cmd.Long, "\n")
	for i, l := range lines {
		lines[i] = wrapLine(l, helpWidth)
	}
	cmd.Long = strings.Join(lines, "\n")
	wrapped := fmt.Sprintf("(.LocalFlags.FlagUsagesWrapped %d)", helpWidth)
	cmd.SetUsageTemplate(strings.ReplaceAll(cmd.UsageTemplate(), ".LocalFlags.FlagUsages", wrapped))
}
