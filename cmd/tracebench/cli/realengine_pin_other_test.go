//go:build !race && !linux

package cli

import "os/exec"

// startOnCPU starts cmd unbound: binding a process to one CPU is done
// only on Linux.
func startOnCPU(cmd *exec.Cmd, _ int) error { return cmd.Start() }
