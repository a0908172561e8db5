package atomicfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
