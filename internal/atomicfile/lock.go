package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrLocked means another live process is writing the same output.
var ErrLocked = errors.New("output is being written by another process")

// LockedError is the error of Lock for an output that a live process
// holds. It matches ErrLocked under errors.Is.
type LockedError struct {
	Path     string // the output
	LockFile string
	PID      int // the holder; 0 when the lock file cannot be read
}

// Error names the output, the holder and the lock file.
func (e *LockedError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("%s: %v: %s holds %s (wait for it to finish; if no such process runs, remove the lock file)", e.Path, ErrLocked, holder, e.LockFile)
}

// Is reports whether target is ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock is a held lock on one output path.
type Lock struct {
	file string
}

// LockPath returns the lock file of path: DIR/.NAME.lock.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// TryLock takes the lock of output path: it creates LockPath(path) with
// O_EXCL, holding this process's PID. A lock file whose PID names no live
// process (a killed run) is taken over. A lock held by a live process is a
// *LockedError. Unlock releases it.
func TryLock(path string) (*Lock, error) {
	lf := LockPath(path)
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(lf, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(lf)
				return nil, fmt.Errorf("lock %s: %w", path, werr)
			}
			return &Lock{file: lf}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		pid := lockHolder(lf)
		if attempt > 0 || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			return nil, &LockedError{Path: path, LockFile: lf, PID: pid}
		}
		// The holder was killed: take the lock over.
		if err := os.Remove(lf); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("lock %s: remove stale lock: %w", path, err)
		}
	}
}

// lockHolder returns the PID written in a lock file, 0 when unreadable.
func lockHolder(lf string) int {
	b, err := os.ReadFile(lf)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}

// Unlock removes the lock file. It is safe on a nil Lock and idempotent.
func (l *Lock) Unlock() {
	if l == nil || l.file == "" {
		return
	}
	os.Remove(l.file)
	l.file = ""
}
