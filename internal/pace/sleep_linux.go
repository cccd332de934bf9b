package pace

import (
	"syscall"
	"time"
)

// Sleep blocks the calling thread in nanosleep(2) for d (nothing when
// d ≤ 0); the kernel ends it within its timer slack (50 µs by default).
// The runtime gives the goroutine's processor to others meanwhile. Use it
// for short waits (up to a few ms): it holds an OS thread throughout.
func Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rem); err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
