//go:build !unix

package trace_test

import "time"

// cpuTime returns 0: CPU time is not measured on this platform.
func cpuTime() time.Duration { return 0 }
