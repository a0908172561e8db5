package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is the mirage binary the tests that run real processes share:
// built once per test binary, removed by TestMain.
var built struct {
	once      sync.Once
	dir, path string
	err       error
	out       []byte
}

// mirageBinary returns the path of a mirage binary built from this
// package, skipping the test under -short or without a go command.
func mirageBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: builds mirage and runs it")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build mirage with:", err)
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "mirage-test-bin-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "mirage")
		built.out, built.err = exec.Command(goTool, "build", "-o", built.path, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
