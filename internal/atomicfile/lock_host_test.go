package atomicfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// TestTryLock_Host: a lock file holds "PID HOST". A dead holder's lock
// is taken over when written on this host (or by an earlier Mirage,
// without a host), never when written on another host sharing the file
// system, whose processes cannot be looked up from here: that is a
// *LockedError naming the host.
func TestTryLock_Host(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" || strings.ContainsAny(host, " \t\n") {
		t.Skipf("host name %q: %v", host, err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	l, err := atomicfile.TryLock(out)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(atomicfile.LockPath(out)); string(b) != strconv.Itoa(os.Getpid())+" "+host+"\n" {
		t.Errorf("lock file %q, want PID and host", b)
	}
	l.Unlock()
	dead := strconv.Itoa(deadPID(t))
	for _, tc := range []struct {
		text, host string // "" host: taken over
	}{
		{dead + " " + host + "\n", ""},
		{dead + "\n", ""},
		{dead + " node-elsewhere-7\n", "node-elsewhere-7"},
	} {
		if err := os.WriteFile(atomicfile.LockPath(out), []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := atomicfile.TryLock(out)
		var le *atomicfile.LockedError
		switch {
		case tc.host == "" && err != nil:
			t.Errorf("lock %q: %v, want it taken over", tc.text, err)
		case tc.host != "" && (!errors.As(err, &le) || le.Host != tc.host || !strings.Contains(err.Error(), "process "+dead+" on "+tc.host+" holds ")):
			t.Errorf("lock %q: %v, want a *LockedError naming %s", tc.text, err, tc.host)
		}
		l.Unlock()
		os.Remove(atomicfile.LockPath(out))
	}
}

// TestTryLock_HolderAlwaysNamed: a second TryLock racing the first never
// finds the lock file without its holder (it was once created empty and
// written after, so the loser could not say who held it).
func TestTryLock_HolderAlwaysNamed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for i := range 300 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		locks := make([]*atomicfile.Lock, 2)
		for k := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				locks[k], errs[k] = atomicfile.TryLock(out)
			}()
		}
		wg.Wait()
		for k, err := range errs {
			var le *atomicfile.LockedError
			if errors.As(err, &le) && le.PID != os.Getpid() {
				t.Fatalf("round %d: the loser read holder PID %d, want %d: %v", i, le.PID, os.Getpid(), err)
			} else if err != nil && le == nil {
				t.Fatalf("round %d: %v", i, err)
			}
			locks[k].Unlock()
		}
	}
}
