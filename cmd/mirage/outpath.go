package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// outputKind says what an output path names.
type outputKind uint8

const (
	// outputFile is a file written through a temporary file in its
	// directory, which must exist.
	outputFile outputKind = iota
	// outputDir is a directory written as a unit (atomicdir); missing
	// parents are created.
	outputDir
	// outputExistingDir is a directory that must exist, written into.
	outputExistingDir
)

// checkOutput returns a usage error (exit 3) unless path can be written
// as an output of kind, so that a command fails in milliseconds instead of
// after its work: the directory it goes in (for outputDir, the nearest
// existing ancestor) must be a directory this process can create files in;
// an existing path must be a file for outputFile and a directory
// otherwise; an existing outputDir may hold only the names matching owned
// (filepath.Match patterns), since it is replaced as a whole (none: any).
// flag names the path in the message ("-o").
func checkOutput(flag, path string, kind outputKind, owned ...string) error {
	fail := func(format string, args ...any) error {
		return usagef("%s %s: %s", flag, path, fmt.Sprintf(format, args...))
	}
	st, err := os.Stat(path)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fail("%v", err)
	case exists && kind == outputFile && st.IsDir():
		return fail("is a directory, want a file path")
	case exists && kind != outputFile && !st.IsDir():
		return fail("exists and is not a directory")
	case !exists && kind == outputExistingDir:
		return fail("no such directory")
	}
	if exists && kind == outputDir && len(owned) > 0 {
		if err := checkOwnedEntries(path, owned); err != nil {
			return fail("%v", err)
		}
	}
	dir := filepath.Dir(path)
	if kind == outputExistingDir {
		dir = path
	}
	if kind == outputDir {
		for {
			if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
	}
	if st, err := os.Stat(dir); err != nil {
		return fail("directory %s: %v", dir, err)
	} else if !st.IsDir() {
		return fail("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".mirage-write-check-*")
	if err != nil {
		return fail("cannot create files in %s: %v", dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
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
