//go:build !unix

package ingest_test

import "time"

// cpuTime returns 0: CPU time is not measured on this platform.
func cpuTime() time.Duration { return 0 }
