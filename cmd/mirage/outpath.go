package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// outputKind says what an output path names.
type outputKind uint8

const (
	// outputFile is a file written through a temporary file in its
	// directory and renamed over it.
	outputFile outputKind = iota
	// outputAppend is a file appended to (created when missing).
	outputAppend
	// outputDir is a directory written as a unit (atomicdir): a
	// temporary directory beside it renamed into place.
	outputDir
	// outputIntoDir is a directory that files are written into, created
	// when missing; it may hold other files.
	outputIntoDir
)

// checkOutput returns a usage error (exit 3) unless path can be written
// as an output of kind, so that a command fails in milliseconds instead of
// after its work. The rule is the same for every command: the directory
// the output goes in must exist (a missing parent directory is refused,
// never created) and be a directory this process can create files in;
// an existing path must be a file for a file output and a directory for
// a directory output; a file output may not be spelled as a directory
// (a trailing slash); an existing outputDir may hold only the names
// matching owned (filepath.Match patterns), since it is replaced as a
// whole (none given: anything). flag names the path in the message
// ("ingest -o").
func checkOutput(flag, path string, kind outputKind, owned ...string) error {
	fail := func(format string, args ...any) error {
		return usagef("%s %s: %s", flag, path, fmt.Sprintf(format, args...))
	}
	if path == "" {
		return usagef("%s: empty path", flag)
	}
	isFile := kind == outputFile || kind == outputAppend
	if isFile && (strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator))) {
		return fail("names a directory, want a file path")
	}
	dir := filepath.Dir(filepath.Clean(path))
	if err := checkParent(dir); err != nil {
		return fail("%v", err)
	}
	st, err := os.Stat(path)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fail("%v", reason(err))
	case exists && isFile && st.IsDir():
		return fail("is a directory, want a file path")
	case exists && !isFile && !st.IsDir():
		return fail("exists and is not a directory")
	}
	if exists && kind == outputDir && len(owned) > 0 {
		if err := checkOwnedEntries(path, owned); err != nil {
			return fail("%v", err)
		}
	}
	probe := dir // where the files are created: the temporary, or the output's own
	if exists && kind == outputIntoDir {
		probe = path
	}
	if err := canCreateIn(probe); err != nil {
		return fail("%v", err)
	}
	if exists && kind == outputAppend {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return fail("cannot append to it: %v", reason(err))
		}
		f.Close()
	}
	return nil
}

// checkParent returns an error unless dir, the directory an output goes
// in, exists and is a directory: it says whether it is missing or which
// ancestor is a file.
func checkParent(dir string) error {
	st, err := os.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s is a file, not a directory", dir)
		}
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("directory %s: %v", dir, reason(err))
	}
	// Say which ancestor is missing, or is a file.
	for a := filepath.Dir(dir); ; a = filepath.Dir(a) {
		if st, err := os.Stat(a); err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s is a file, not a directory", a)
			}
			break
		}
		if filepath.Dir(a) == a {
			break
		}
	}
	return fmt.Errorf("directory %s does not exist (create it first)", dir)
}

// canCreateIn returns an error unless this process can create a file in
// dir (a read-only file system, missing permission, a pseudo file system
// such as /proc), by creating and removing one.
func canCreateIn(dir string) error {
	f, err := os.CreateTemp(dir, ".mirage-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s: %v", dir, reason(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// reason is err without its *os.PathError wrapping (whose path the
// message already names): "read-only file system", "permission denied".
func reason(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkOwnedEntries returns an error naming the entries of dir that match
// none of owned.
func checkOwnedEntries(dir string, owned []string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var foreign []string
	for _, e := range entries {
		ok := false
		for _, p := range owned {
			if m, _ := filepath.Match(p, e.Name()); m {
				ok = true
				break
			}
		}
		if !ok {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	if len(foreign) > 5 {
		foreign = append(foreign[:5], "...")
	}
	return fmt.Errorf("holds files this command does not write (%s); it is replaced as a whole, so choose another directory or move them", strings.Join(foreign, ", "))
}
