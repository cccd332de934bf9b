package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/results"
)

func init() { register(newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge SHARD.jsonl... -o merged.jsonl",
		Short: "Combine the results files of the shards of one run",
		Long: `merge streams the results files of a sharded run (--shard i/n) into one.
Reports built from the merged file compute every percentile over all
requests (histograms merged, never percentiles averaged) and state how many
shards ran; each shard had its own router state, like separate gateway
replicas.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("merge: -o FILE is required")
			}
			st, err := results.Merge(out, args)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d shards: %d results, %d events (%d truncated shards) into %s\n",
				st.Shards, st.Results, st.Events, st.Truncated, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "merged results file to write")
	return cmd
}
