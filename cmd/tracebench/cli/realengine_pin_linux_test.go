//go:build !race && linux

package cli

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startOnCPU starts cmd with every thread of the new process bound to
// CPU cpu: the child inherits the CPU mask of the thread that forks it,
// so the calling goroutine binds its own locked thread for the start and
// restores the mask afterwards. A cpu below 0 starts it unbound.
func startOnCPU(cmd *exec.Cmd, cpu int) error {
	if cpu < 0 {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("read CPU mask: %w", err)
	}
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		return fmt.Errorf("bind to CPU %d: %w", cpu, err)
	}
	startErr := cmd.Start()
	if err := unix.SchedSetaffinity(0, &old); err != nil && startErr == nil {
		return fmt.Errorf("restore CPU mask: %w", err)
	}
	return startErr
}
