package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// ReadManifest reads dir's manifest.json (WriteArtifact's) without
// opening the model file or checking the seal, for tools that describe a
// model rather than run it (Open checks the seal and parses the model). A
// missing file is an error wrapping fs.ErrNotExist; one larger than
// MaxManifestBytes wraps ErrBadModel.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := ReadBounded(path, MaxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read manifest %s: %w: %w", path, ErrBadModel, err)
	}
	return &m, nil
}

// ReadCV returns the model's cross-validation: the manifest's when it has
// one, else dir/cv.json's, else nil (no error) when neither has it.
func ReadCV(dir string, m *Manifest) (*CVResult, error) {
	if m != nil && m.CV != nil {
		return m.CV, nil
	}
	path := filepath.Join(dir, CVFile)
	b, err := ReadBounded(path, MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cv: %w", err)
	}
	var cv CVResult
	if err := json.Unmarshal(b, &cv); err != nil {
		return nil, fmt.Errorf("read cv %s: %w", path, err)
	}
	return &cv, nil
}
