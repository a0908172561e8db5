// Package modeltest edits model directories in tests: it changes a
// manifest on purpose and seals it again (train.Seal), so that a test
// reaches the check after the seal's.
package modeltest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/train"
)

// manifestOf returns the manifest file of dir: manifest.json, else
// forecast.json.
func manifestOf(dir string) string {
	p := filepath.Join(dir, train.ManifestFile)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return filepath.Join(dir, train.ForecastFile)
}

// Edit applies f to dir's manifest (decoded with json.Number numbers) and
// reseals the directory (Reseal).
func Edit(tb testing.TB, dir string, f func(m map[string]any)) {
	tb.Helper()
	p := manifestOf(dir)
	m := read(tb, p)
	f(m)
	write(tb, dir, p, m, true)
}

// EditManifest applies f to dir's manifest and sets its manifest_sha256
// only: the files' sizes and digests are what f leaves (a manifest that
// lies about a file, consistently sealed).
func EditManifest(tb testing.TB, dir string, f func(m map[string]any)) {
	tb.Helper()
	p := manifestOf(dir)
	m := read(tb, p)
	f(m)
	write(tb, dir, p, m, false)
}

// Reseal sets the size and SHA-256 of every file dir's manifest lists
// (every other file of dir when it lists none) to the file's as it is
// now, and the manifest's manifest_sha256 to the digest of the result.
func Reseal(tb testing.TB, dir string) {
	tb.Helper()
	p := manifestOf(dir)
	write(tb, dir, p, read(tb, p), true)
}

func read(tb testing.TB, p string) map[string]any {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		tb.Fatalf("%s: %v", p, err)
	}
	return m
}

func write(tb testing.TB, dir, p string, m map[string]any, sums bool) {
	tb.Helper()
	if sums {
		m["files"] = fileSums(tb, dir, p, m)
	}
	m[train.ManifestDigestKey] = ""
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	d, _, err := train.ManifestDigest(b)
	if err != nil {
		tb.Fatal(err)
	}
	m[train.ManifestDigestKey] = d
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// fileSums returns the manifest's files (every other file of dir when it
// lists none) with their sizes and digests as they are now.
func fileSums(tb testing.TB, dir, p string, m map[string]any) map[string]any {
	tb.Helper()
	files, _ := m["files"].(map[string]any)
	if len(files) == 0 {
		files = map[string]any{}
		ents, err := os.ReadDir(dir)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() && e.Name() != filepath.Base(p) {
				files[e.Name()] = nil
			}
		}
	}
	for name := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		sum := sha256.Sum256(b)
		files[name] = train.FileSum{Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
	}
	return files
}

// CopyDir copies the files of the model directory from into to (created;
// nested directories are not copied: a model directory has none), so a
// test can damage a copy and keep the original.
func CopyDir(tb testing.TB, from, to string) {
	tb.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		tb.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
