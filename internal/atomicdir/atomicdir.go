// Package atomicdir writes a directory of files as a unit, the way
// Prometheus's tsdb writes a block: every file goes into a temporary
// directory beside the target (.NAME.tmp-PID-RANDOM), which is synced and
// renamed into place only when complete. A reader sees the old directory
// or the new one, never a mix of files from two runs.
//
// Replacing an existing directory takes two renames (the old one aside to
// .NAME.old-PID-RANDOM, then the new one into place); the old one is
// removed only after the second rename succeeded, and a run killed between
// the two is repaired by the next writer (Create puts the old directory
// back). A lock file (atomicfile.TryLock) keeps two live writers off one
// target, and Create removes the temporaries of killed runs.
package atomicdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// Dir is a directory being written. Files go under Path; Commit renames it
// to Target. Exactly one of Commit and Abort must be called.
type Dir struct {
	// Target is the directory that Commit creates or replaces.
	Target string
	// Path is the temporary directory to write the files into.
	Path string
	lock *atomicfile.Lock
}

// ErrForeign means the target is an existing directory holding files that
// the writer does not own (or is not a directory): replacing it would
// lose them.
var ErrForeign = errors.New("output directory holds other files")

// Create locks target (an *atomicfile.LockedError, matching
// atomicfile.ErrLocked, when a live process holds it), restores the
// previous directory of a run killed mid-Commit, removes the temporaries of
// killed runs, and creates the empty temporary directory Path beside
// target, creating target's missing parents. owned lists the names (filepath.Match patterns) the writer
// makes: an existing target holding any other entry, or that is not a
// directory, is refused with an error wrapping ErrForeign, since Commit
// replaces the directory as a whole. On error nothing is left behind.
func Create(target string, owned ...string) (*Dir, error) {
	target = filepath.Clean(target)
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	lock, err := atomicfile.TryLock(target)
	if err != nil {
		return nil, err
	}
	if err := recoverOld(target); err != nil {
		lock.Unlock()
		return nil, err
	}
	if err := checkOwned(target, owned); err != nil {
		lock.Unlock()
		return nil, err
	}
	if _, err := atomicfile.RemoveStale(target); err != nil {
		lock.Unlock()
		return nil, err
	}
	tmp, err := atomicfile.MkdirTemp(target)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		lock.Unlock()
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	return &Dir{Target: target, Path: tmp, lock: lock}, nil
}

// File returns the path of name inside the temporary directory.
func (d *Dir) File(name string) string { return filepath.Join(d.Path, name) }

// Commit syncs every file under Path and Path itself, then renames Path to
// Target, replacing a previous Target (a directory) only once the new one
// is in place, and syncs the parent directory. It releases the lock. On
// error the previous Target is as it was and Path is removed.
func (d *Dir) Commit() (err error) {
	defer d.lock.Unlock()
	defer func() {
		if err != nil {
			os.RemoveAll(d.Path)
			err = fmt.Errorf("write %s: %w", d.Target, err)
		}
	}()
	if err := syncTree(d.Path); err != nil {
		return err
	}
	old := ""
	st, err := os.Lstat(d.Target)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s exists and is not a directory", d.Target)
	case err == nil:
		old = oldName(d.Target)
		if err := os.Rename(d.Target, old); err != nil {
			return err
		}
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	if err := os.Rename(d.Path, d.Target); err != nil {
		if old != "" {
			os.Rename(old, d.Target) // put the previous one back
		}
		return err
	}
	syncDir(filepath.Dir(d.Target))
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// Abort removes the temporary directory and releases the lock; Target is
// left as it was. It is a no-op after Commit.
func (d *Dir) Abort() {
	if d.lock == nil {
		return
	}
	os.RemoveAll(d.Path)
	d.lock.Unlock()
	d.lock = nil
}

// checkOwned returns an error wrapping ErrForeign when target exists and
// is not a directory, or holds an entry that matches none of owned.
func checkOwned(target string, owned []string) error {
	st, err := os.Stat(target)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", target, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("create %s: %w: it exists and is not a directory", target, ErrForeign)
	}
	entries, err := os.ReadDir(target)
	if err != nil {
		return fmt.Errorf("create %s: %w", target, err)
	}
	var foreign []string
	for _, e := range entries {
		if !matchesAny(e.Name(), owned) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		if len(foreign) > 5 {
			foreign = append(foreign[:5], "...")
		}
		return fmt.Errorf("create %s: %w (%s); the directory is replaced as a whole, so choose another one or move them",
			target, ErrForeign, strings.Join(foreign, ", "))
	}
	return nil
}

func matchesAny(name string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

// oldPrefix is the prefix of target's previous directory set aside.
func oldPrefix(target string) string { return "." + filepath.Base(target) + ".old-" }

// oldName returns a fresh name for the previous directory set aside.
func oldName(target string) string {
	return filepath.Join(filepath.Dir(target), oldPrefix(target)+strconv.Itoa(os.Getpid()))
}

// recoverOld puts back the previous directory of a Commit killed between
// its two renames (target missing, .NAME.old-PID present), and removes
// leftover old directories when target exists.
func recoverOld(target string) error {
	entries, err := os.ReadDir(filepath.Dir(target))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("create %s: %w", target, err)
	}
	_, terr := os.Lstat(target)
	missing := errors.Is(terr, os.ErrNotExist)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), oldPrefix(target)) {
			continue
		}
		p := filepath.Join(filepath.Dir(target), e.Name())
		if missing {
			if err := os.Rename(p, target); err != nil {
				return fmt.Errorf("restore %s from %s: %w", target, p, err)
			}
			missing = false
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove %s: %w", p, err)
		}
	}
	return nil
}

// syncTree fsyncs every regular file under dir, then every directory.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type()&os.ModeSymlink != 0 {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		serr := f.Sync()
		if cerr := f.Close(); serr == nil {
			serr = cerr
		}
		if serr != nil && e.IsDir() {
			return nil // some file systems cannot sync a directory
		}
		return serr
	})
}

// syncDir fsyncs a directory, ignoring file systems that cannot.
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}
