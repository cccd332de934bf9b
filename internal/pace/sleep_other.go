//go:build !linux

package pace

import "time"

// Sleep sleeps d with the runtime's timers: no finer sleep is used
// outside Linux.
func Sleep(d time.Duration) { time.Sleep(d) }
