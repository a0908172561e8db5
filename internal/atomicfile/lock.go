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
	// Host is the holder's host when it is not this one (a lock on a
	// file system that several hosts share); "" otherwise.
	Host string
}

// Error names the output, the holder and the lock file.
func (e *LockedError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = "process " + strconv.Itoa(e.PID)
	}
	if e.Host != "" {
		holder += " on " + e.Host
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
// O_EXCL, holding this process's PID and host name ("PID HOST"). A lock
// file whose PID names no live process on this host (a killed run) is
// taken over; one written on another host is not, since its process
// cannot be looked up from here. A lock held by a live process, or by one
// of another host, is a *LockedError. Unlock releases it.
func TryLock(path string) (*Lock, error) {
	lf := LockPath(path)
	host := hostName()
	for attempt := 0; ; attempt++ {
		err := createLock(lf, strings.TrimSpace(strconv.Itoa(os.Getpid())+" "+host)+"\n")
		if err == nil {
			return &Lock{file: lf}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		pid, holderHost := lockHolder(lf)
		elsewhere := holderHost != "" && holderHost != host
		if attempt > 0 || pid <= 0 || elsewhere || pid == os.Getpid() || processAlive(pid) {
			le := &LockedError{Path: path, LockFile: lf, PID: pid}
			if elsewhere {
				le.Host = holderHost
			}
			return nil, le
		}
		// The holder was killed: take the lock over.
		if err := os.Remove(lf); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("lock %s: remove stale lock: %w", path, err)
		}
	}
}

// createLock creates the lock file lf holding content, failing with an
// error wrapping os.ErrExist when it exists. The content is written to a
// temporary file first and linked into place, so a process that finds
// the lock always reads its holder (created empty and then written, a
// second run could read it in between and not say who holds it). Where
// the file system has no hard links, the lock is created with O_EXCL and
// then written.
func createLock(lf, content string) error {
	tmp := fmt.Sprintf("%s.tmp-%d", lf, os.Getpid())
	if err := os.WriteFile(tmp, []byte(content), 0o644); err == nil {
		err = os.Link(tmp, lf)
		os.Remove(tmp)
		if err == nil || errors.Is(err, os.ErrExist) {
			return err
		}
	}
	f, err := os.OpenFile(lf, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(lf)
		return werr
	}
	return nil
}

// hostName is this host's name as a lock file holds it (one word); ""
// when unknown.
func hostName() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(h), "-")
}

// lockHolder returns the PID and the host written in a lock file: 0 when
// unreadable, "" when it names no host (an earlier Mirage's "PID").
func lockHolder(lf string) (pid int, host string) {
	b, err := os.ReadFile(lf)
	if err != nil {
		return 0, ""
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 || len(fields) > 2 {
		return 0, ""
	}
	if pid, err = strconv.Atoi(fields[0]); err != nil {
		return 0, ""
	}
	if len(fields) == 2 {
		host = fields[1]
	}
	return pid, host
}

// Unlock removes the lock file. It is safe on a nil Lock and idempotent.
func (l *Lock) Unlock() {
	if l == nil || l.file == "" {
		return
	}
	os.Remove(l.file)
	l.file = ""
}
