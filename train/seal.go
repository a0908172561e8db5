package train

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ManifestDigestKey is the top-level manifest key of the manifest's own
// SHA-256.
const ManifestDigestKey = "manifest_sha256"

// Size bounds of the files of a model directory, in bytes: a manifest
// larger than MaxManifestBytes, or a model file (XGBoost JSON, run-time
// encoding) larger than MaxModelFileBytes, is refused before it is read.
const (
	MaxManifestBytes  = 64 << 20
	MaxModelFileBytes = 1 << 30
)

// ErrUnsealed means a manifest has no manifest_sha256: it was written by a
// mirage from before model directories were sealed, and the model must be
// trained again. It matches ErrDigest.
var ErrUnsealed = fmt.Errorf("%w: manifest not sealed (no %s)", ErrDigest, ManifestDigestKey)

// FileSum is the size and SHA-256 of one file of a model directory.
type FileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Seal is the part of every model manifest that covers its directory
// (embedded in the manifest types, so its keys are top-level).
type Seal struct {
	// Files are the directory's other files by name.
	Files map[string]FileSum `json:"files"`
	// ManifestSHA256 is the SHA-256 of the manifest's canonical form.
	ManifestSHA256 string `json:"manifest_sha256"`
}

// Add records b as the contents of file name.
func (s *Seal) Add(name string, b []byte) {
	if s.Files == nil {
		s.Files = map[string]FileSum{}
	}
	sum := sha256.Sum256(b)
	s.Files[name] = FileSum{Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
}

// AddFile records the file dir/name as it is on disk.
func (s *Seal) AddFile(dir, name string) error {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("seal %s: %w", dir, err)
	}
	s.Add(name, b)
	return nil
}

// MarshalManifest returns m, a manifest whose Seal is s (a field of m),
// as indented JSON with a final newline and s.ManifestSHA256 set to the
// digest of its canonical form.
func MarshalManifest(m any, s *Seal) ([]byte, error) {
	if s.Files == nil {
		s.Files = map[string]FileSum{}
	}
	s.ManifestSHA256 = ""
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if s.ManifestSHA256, _, err = ManifestDigest(b); err != nil {
		return nil, err
	}
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ManifestDigest returns the SHA-256 (hex) of the canonical form of the
// manifest JSON b (see the package documentation), and the digest b
// states under ManifestDigestKey ("" when it has none).
func ManifestDigest(b []byte) (digest, stated string, err error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return "", "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", "", errors.New("data after the manifest's object")
	}
	if obj == nil {
		return "", "", errors.New("manifest is not a JSON object")
	}
	stated, _ = obj[ManifestDigestKey].(string)
	obj[ManifestDigestKey] = ""
	c, err := json.Marshal(obj)
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), stated, nil
}

// ReadManifestFile reads the manifest dir/name (at most MaxManifestBytes;
// a larger one wraps ErrBadModel) and checks its manifest_sha256: an error
// wrapping ErrUnsealed when it has none, ErrDigest when it differs, and
// ErrBadModel when it is not a JSON object. A missing file wraps
// fs.ErrNotExist.
func ReadManifestFile(dir, name string) ([]byte, error) {
	path := filepath.Join(dir, name)
	b, err := ReadBounded(path, MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	got, stated, err := ManifestDigest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrBadModel, err)
	}
	if stated == "" {
		return nil, fmt.Errorf("%s: %w: written by a mirage from before model directories were sealed; train the model again", path, ErrUnsealed)
	}
	if got != stated {
		return nil, fmt.Errorf("%s: %w: the manifest was changed: its sha256 (with %s emptied) is %s, %s says %s",
			path, ErrDigest, ManifestDigestKey, got, ManifestDigestKey, stated)
	}
	return b, nil
}

// ReadBounded reads path whole when it is a regular file of at most
// limit bytes; a larger file wraps ErrBadModel and is not read.
func ReadBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: not a regular file", path, ErrBadModel)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than the %d a model file may have", path, ErrBadModel, st.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: more than the %d bytes a model file may have", path, ErrBadModel, limit)
	}
	return b, nil
}

// checkName refuses a file name that is not a plain name in the directory.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || !filepath.IsLocal(name) {
		return fmt.Errorf("%w: file name %q in the manifest's files", ErrBadModel, name)
	}
	return nil
}

// Names returns the names of s.Files, sorted.
func (s *Seal) Names() []string {
	names := make([]string, 0, len(s.Files))
	for n := range s.Files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ReadFile reads the sealed file dir/name: an error wrapping ErrBadModel
// when the seal does not list it or lists more than limit bytes, ErrDigest
// when its size on disk differs from the seal's (checked before reading)
// or its SHA-256 does.
func (s *Seal) ReadFile(dir, name string, limit int64) ([]byte, error) {
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	want, ok := s.Files[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w: the manifest's files do not list %s", dir, ErrBadModel, name)
	}
	if want.Size < 0 || want.Size > limit {
		return nil, fmt.Errorf("%s: %w: %s of %d bytes (manifest), more than the %d a model file may have", dir, ErrBadModel, name, want.Size, limit)
	}
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w: %s is missing (the manifest lists it): %w", dir, ErrDigest, name, err)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() != want.Size {
		return nil, fmt.Errorf("%s: %w: %s has %d bytes, the manifest says %d", dir, ErrDigest, name, st.Size(), want.Size)
	}
	b := make([]byte, want.Size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("%s: %w: %s: %w", dir, ErrDigest, name, err)
	}
	if n, _ := f.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("%s: %w: %s grew while read", dir, ErrDigest, name)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want.SHA256 {
		return nil, fmt.Errorf("%s: %w: %s has sha256 %s, the manifest says %s", dir, ErrDigest, name, got, want.SHA256)
	}
	return b, nil
}

// Verify checks every file of s but skip (names the caller reads with
// ReadFile) against its size, before reading it, and its SHA-256, reading
// it in pieces: errors as ReadFile's.
func (s *Seal) Verify(dir string, skip ...string) error {
	for _, name := range s.Names() {
		if slices.Contains(skip, name) {
			continue
		}
		if err := checkName(name); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if err := verifyFile(dir, name, s.Files[name]); err != nil {
			return err
		}
	}
	return nil
}

func verifyFile(dir, name string, want FileSum) error {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w: %s is missing (the manifest lists it): %w", dir, ErrDigest, name, err)
		}
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || st.Size() != want.Size {
		return fmt.Errorf("%s: %w: %s has %d bytes, the manifest says %d", dir, ErrDigest, name, st.Size(), want.Size)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, want.Size+1))
	if err != nil {
		return fmt.Errorf("%s: %s: %w", dir, name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != want.Size || got != want.SHA256 {
		return fmt.Errorf("%s: %w: %s has sha256 %s, the manifest says %s", dir, ErrDigest, name, got, want.SHA256)
	}
	return nil
}
