//go:build unix

package trace_test

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user plus system CPU time, or 0 when
// unavailable.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
