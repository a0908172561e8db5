package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Temporary names. A temporary file or directory for path DIR/NAME is
// DIR/.NAME.tmp-PID-RANDOM, where PID is the writing process; a file
// made for a temporary (the external sort's runs of a trace being written
// to a temporary file) is named after it, DIR/..NAME.tmp-PID-RANDOM.SUFFIX,
// so it carries the same PID. The next writer of the same path
// recognises the temporaries of a killed run by their dead PID and
// removes them: CreateTemp and MkdirTemp do, before creating their own,
// and RemoveStale (for a writer holding the path's Lock) also removes
// the legacy temporaries of earlier versions. A live process's
// temporaries are never removed.

// tempPrefix returns the prefix of path's temporary names, before the PID.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// CreateTemp creates a new temporary file for path in path's directory,
// named so that RemoveStale recognises it once its process is gone, after
// removing the temporaries of path whose process is gone.
func CreateTemp(path string) (*os.File, error) {
	if _, err := removeDead(path); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, fmt.Errorf("create temporary file for %s: %w", path, err)
	}
	return f, nil
}

// MkdirTemp creates a new temporary directory for path beside it, named
// like CreateTemp's files.
func MkdirTemp(path string) (string, error) {
	if _, err := removeDead(path); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), tempPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return "", fmt.Errorf("create temporary directory for %s: %w", path, err)
	}
	return dir, nil
}

// LegacyAge is how old a temporary of an earlier Mirage version (named
// .NAME.tmpDIGITS or .NAME-DIGITS.tmp, without a PID) must be before
// RemoveStale removes it: such a name does not say whether its writer is
// alive.
const LegacyAge = time.Hour

// RemoveStale removes the temporaries of path left by runs that were
// killed: those whose PID names no live process, and those of the legacy
// patterns older than LegacyAge. The caller should hold path's Lock, so
// that no live writer of path is mid-way. It returns the names removed.
// A temporary of this process is left alone.
func RemoveStale(path string) ([]string, error) {
	return remove(path, true)
}

// removeDead removes the temporaries of path whose PID names no live
// process (not the legacy ones, whose age is the only clue: that needs
// the Lock), and returns their names.
func removeDead(path string) ([]string, error) {
	return remove(path, false)
}

// remove removes path's temporaries of dead processes, and with legacy
// the old legacy ones too.
func remove(path string, legacy bool) ([]string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("remove stale temporaries of %s: %w", path, err)
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !isStale(dir, name, base, legacy) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return removed, fmt.Errorf("remove stale temporary %s: %w", filepath.Join(dir, name), err)
		}
		removed = append(removed, filepath.Join(dir, name))
	}
	return removed, nil
}

// isStale reports whether name (in dir) is a temporary of base, or a
// file named after one (.TEMPORARY...), whose writer is gone; with
// withLegacy, an old temporary of the legacy patterns also is.
func isStale(dir, name, base string, withLegacy bool) bool {
	if pid, ok := tempPID(name, base); ok {
		return pid != os.Getpid() && !processAlive(pid)
	}
	if derived, ok := strings.CutPrefix(name, "."); ok {
		if pid, ok := tempPID(derived, base); ok {
			return pid != os.Getpid() && !processAlive(pid)
		}
	}
	if !withLegacy {
		return false
	}
	legacy := false
	if rest, ok := strings.CutPrefix(name, "."+base+".tmp"); ok && isDigits(rest) {
		legacy = true // atomicfile.Write before PIDs
	}
	if rest, ok := strings.CutPrefix(name, "."+base+"-"); ok && strings.HasSuffix(rest, ".tmp") && isDigits(strings.TrimSuffix(rest, ".tmp")) {
		legacy = true // ingest before PIDs
	}
	if !legacy {
		return false
	}
	st, err := os.Lstat(filepath.Join(dir, name))
	return err == nil && time.Since(st.ModTime()) > LegacyAge
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// tempPID returns the PID in name when name is a temporary of base
// (.BASE.tmp-PID-...).
func tempPID(name, base string) (int, bool) {
	rest, ok := strings.CutPrefix(name, tempPrefix(base))
	if !ok {
		return 0, false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}
