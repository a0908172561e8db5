package replay

import (
	"os"
	"testing"
)

var tempDir string

// mkdirTemp returns a directory for the package's shared test files,
// removed by TestMain.
func mkdirTemp() (string, error) {
	if tempDir == "" {
		d, err := os.MkdirTemp("", "replay-test-")
		if err != nil {
			return "", err
		}
		tempDir = d
	}
	return tempDir, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tempDir != "" {
		os.RemoveAll(tempDir)
	}
	os.Exit(code)
}
