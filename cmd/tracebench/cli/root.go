// Package cli implements the tracebench commands, one file per command.
// Each command has an options struct and a run function tested apart from
// flag parsing. Usage errors exit 2, runtime errors exit 1 with one line,
// an interrupted run exits 130.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/bench"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// commands are the constructors of the subcommands, added by each
// command's file in an init function.
var commands []func() *cobra.Command

// register adds a subcommand constructor.
func register(f func() *cobra.Command) { commands = append(commands, f) }

// The flags of a Run, bound to the bench package's Spec parts: the
// workload (bench.Workload), the policy (bench.Policy) and the client
// (bench.Client).
type (
	workloadFlags = bench.Workload
	policyFlags   = bench.Policy
	clientFlags   = bench.Client
	shareGPTFlags = bench.ShareGPT
	runSpec       = bench.Spec
)

// usageError marks an error as a usage error (exit 2).
type usageError = bench.UsageError

// usagef returns a usage error.
func usagef(format string, a ...any) error { return usageError{Err: fmt.Errorf(format, a...)} }

// ErrInterrupted is returned by runs stopped by SIGINT after writing what
// they measured.
var ErrInterrupted = bench.ErrInterrupted

// NewRoot builds the root command writing to out and errOut.
func NewRoot(out, errOut io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "tracebench",
		Short:         "Benchmark routing and batching policies for LLM serving fleets by trace replay",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(out)
	root.SetErr(errOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{Err: err} })
	for _, f := range commands {
		cmd := f()
		namingFlags(cmd)
		if everydayFlags[cmd.Name()] != nil {
			splitHelp(cmd, errOut)
		}
		root.AddCommand(cmd)
	}
	return root
}

// Main runs the command line and returns the process exit code.
func Main() int {
	return Run(os.Args[1:], os.Stdout, os.Stderr)
}

// Run executes args and returns the exit code. SIGINT cancels the
// command's context (a second SIGINT exits at once).
func Run(args []string, out, errOut io.Writer) int {
	errOut = &syncWriter{w: errOut}
	slog.SetDefault(slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, stop := interruptContext(errOut)
	defer stop()
	root := NewRoot(out, errOut)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return exitCode(err, errOut)
}

func exitCode(err error, errOut io.Writer) int {
	var ue usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrInterrupted):
		fmt.Fprintln(errOut, "tracebench: interrupted; results written")
		return ExitInterrupted
	case errors.As(err, &ue):
		fmt.Fprintf(errOut, "tracebench: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintf(errOut, "tracebench: %v\n", err)
	return ExitError
}

// interruptContext is canceled on the first SIGINT/SIGTERM, which it
// acknowledges on errOut; a second one exits the process at once with 130
// (results files stay valid: every line is flushed as it is written).
func interruptContext(errOut io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
		case <-done:
			return
		}
		fmt.Fprintln(errOut, "tracebench: stopping (Ctrl-C again to quit at once)")
		cancel()
		select {
		case <-ch:
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() { signal.Stop(ch); close(done); cancel() }
}
