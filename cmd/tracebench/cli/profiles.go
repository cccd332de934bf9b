package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/mockserver/profile"
)

func init() { register(newProfilesCmd) }

func newProfilesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "profiles [NAME|FILE]",
		Short: "List the built-in engine profiles, or print one as YAML",
		Long: `profiles lists the engine profiles embedded in the binary: the mock and
simulated engine's every parameter (scheduler limits, KV cache, batching,
the step latency model and its jitter), with the source of its figures.
Given a name or a file, it prints that profile's YAML, which can be edited
and passed back with --profile (tracebench mock) or --mock-profile
(replay, bench, sweep). Fields a file leaves out take the
default profile's value.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return showProfile(cmd.OutOrStdout(), args[0])
			}
			return listProfiles(cmd.OutOrStdout())
		},
	}
}

// resolveProfile returns the built-in profile or profile file nameOrPath.
func resolveProfile(nameOrPath string) (*profile.Profile, error) {
	return profile.Resolve(nameOrPath)
}

// listProfiles writes one line per built-in profile.
func listProfiles(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "profile\tc_step\tc_prefill\tc_decode\tbeta\tgamma\tseqs\tblocks\twhat")
	for _, n := range profile.Names() {
		p, err := profile.Builtin(n)
		if err != nil {
			return err
		}
		l, e := p.Latency, p.Engine
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%v\t%g\t%d\t%d\t%s\n", n, round(l.CStep.D()), round(l.CPrefill.D()),
			round(l.CDecode.D()), round(l.Beta.D()), l.Gamma, e.MaxNumSeqs, e.NumGPUBlocks, p.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\n'tracebench profiles NAME' prints a profile's YAML with its source and notes.")
	return err
}

// round shortens a duration for the table (3 significant places).
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond)
	}
	return d
}

// showProfile prints the YAML of one profile.
func showProfile(w io.Writer, nameOrPath string) error {
	if data, ok := profile.BuiltinYAML(nameOrPath); ok {
		_, err := w.Write(data)
		return err
	}
	p, err := resolveProfile(nameOrPath)
	if err != nil {
		return usagef("%v", err)
	}
	data, err := profile.Marshal(p)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
