package digest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/internal/digest"
)

func TestFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := digest.File(p)
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; err != nil || got != want {
		t.Errorf("File = %s, %v; want %s", got, err, want)
	}
	if _, err := digest.File(p + "-absent"); err == nil {
		t.Error("no error for a missing file")
	}
}
