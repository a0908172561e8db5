package reports

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mirage-hpc/mirage/internal/atomicdir"
)

// DirFiles are the names (filepath.Match patterns) a report directory
// holds: replacing a directory with other files in it is refused
// (atomicdir.ErrForeign).
var DirFiles = []string{HTMLFile, GroundsFile, "*.png", "*.svg"}

// writeDir writes the report directory dir as a unit with
// internal/atomicdir: fill writes into a fresh temporary directory beside
// dir, which then replaces dir. On error dir is unchanged and nothing is
// left behind.
func writeDir(dir string, fill func(tmp string) error) error {
	d, err := atomicdir.Create(dir, DirFiles...)
	if err != nil {
		return fmt.Errorf("report directory: %w", err)
	}
	if err := fill(d.Path); err != nil {
		d.Abort()
		return err
	}
	return d.Commit()
}

// sameDir reports whether a and b name the same directory (the same
// cleaned absolute path, or the same file).
func sameDir(a, b string) (bool, error) {
	aa, err := filepath.Abs(a)
	if err != nil {
		return false, err
	}
	ab, err := filepath.Abs(b)
	if err != nil {
		return false, err
	}
	if aa == ab {
		return true, nil
	}
	fa, errA := os.Stat(aa)
	fb, errB := os.Stat(ab)
	return errA == nil && errB == nil && os.SameFile(fa, fb), nil
}
