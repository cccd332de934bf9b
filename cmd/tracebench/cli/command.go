package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandOptions are the options of one subcommand: bind declares its
// flags on the command's flag set, and run, the command's RunE, reads
// the values parsing left in them.
type commandOptions interface {
	bind(fs *pflag.FlagSet)
	run(cmd *cobra.Command, args []string) error
}

// newCommand completes cmd (its Use, Short, Long, Args and any hooks
// already set) with o: o's flags bound to cmd's flag set, o.run its
// RunE.
func newCommand(cmd *cobra.Command, o commandOptions) *cobra.Command {
	cmd.RunE = o.run
	o.bind(cmd.Flags())
	return cmd
}
