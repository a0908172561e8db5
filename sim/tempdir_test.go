package sim_test

import "os"

// testenvTempDir returns a process-wide temporary directory for shared
// fixtures (removed by the OS; tests may not share t.TempDir across tests).
func testenvTempDir() (string, error) { return os.MkdirTemp("", "mirage-sim-test-") }
