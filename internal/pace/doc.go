// Package pace waits until wall-clock deadlines more precisely than the
// runtime's timers do.
//
// Go's runtime wakes timers from its network poller, which on Linux waits
// in whole milliseconds (epoll_wait's timeout), so a timer fires up to
// about 1 ms after its time when the process is otherwise idle: a median
// of about 0.4 ms and a 99th percentile of about 1.1 ms on a 2-core VM,
// and 3 ms with 56 timers pacing 6 ms steps. That is a sixth of a 6 ms
// token gap. Until waits on a timer until Fine before the deadline and
// sleeps the rest in nanosleep(2), which ends within the kernel's timer
// slack: about 0.07 ms at the median and 0.1–0.16 ms at the 99th
// percentile on the same machine, for the same CPU time.
package pace
