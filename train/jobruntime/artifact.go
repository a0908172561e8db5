package jobruntime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/train/xgbjson"
)

// Kind is the manifest kind of a run-time model.
const Kind = "runtime"

// SchemaVersion is the version of the artifact's layout and features.
const SchemaVersion = 1

// Artifact file names.
const (
	ManifestFile    = "manifest.json"
	EncodingFile    = "encoding.json"
	MetricsFile     = "metrics.json"
	CalibrationFile = "calibration.png"
)

// Errors of Open.
var (
	// ErrDigest means a model or encoding file does not match the
	// manifest's SHA-256.
	ErrDigest = errors.New("runtime model digest mismatch")
	// ErrArtifact means the directory is not a run-time model this code
	// can read (another kind, schema version, or feature list).
	ErrArtifact = errors.New("not a runtime model artifact")
)

// Manifest is manifest.json.
type Manifest struct {
	Kind          string `json:"kind"`
	SchemaVersion int    `json:"schema_version"`
	// Approach is the chosen way of learning the distribution.
	Approach string `json:"approach"`
	// Edges are the ratio bin edges (see DefaultEdges).
	Edges []float64 `json:"bin_edges_ratio"`
	// Levels are the quantile levels of Predict.
	Levels   []float64          `json:"levels"`
	Features []features.Feature `json:"features"`
	// Zone is the IANA zone of the hour and weekday features.
	Zone      string         `json:"zone"`
	History   HistoryOptions `json:"history"`
	Smoothing float64        `json:"smoothing_rows"`
	Params    Params         `json:"params"`
	// Rounds is each model file's boosting round count.
	Rounds []int `json:"rounds"`
	// Rows is the number of training jobs; TrainPeriod the training period
	// [from, to) in Unix seconds (jobs submitted in it and ended by its end).
	Rows        int      `json:"rows"`
	TrainPeriod [2]int64 `json:"train_period_unix"`
	TraceDigest string   `json:"trace_sha256,omitempty"`
	Seed        uint64   `json:"seed"`
	// Versions are the code's and libxgboost's versions.
	Versions map[string]string `json:"versions"`
	// Models are the XGBoost JSON files: one for softprob, one per inner
	// bin edge for heads.
	Models   []FileDigest `json:"models"`
	Encoding FileDigest   `json:"encoding"`
}

// FileDigest names a file of the artifact and its SHA-256 (hex).
type FileDigest struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ArtifactFiles are the names (filepath.Match patterns) a run-time model
// directory holds; Train refuses an existing directory holding others.
var ArtifactFiles = []string{ManifestFile, "model.json", "head_*.json", EncodingFile, MetricsFile, CalibrationFile}

func modelFileName(a Approach, k int) string {
	if a == ApproachSoftprob {
		return "model.json"
	}
	return fmt.Sprintf("head_%02d.json", k)
}

// writeArtifact writes the model files, encoding.json and manifest.json
// (last, with the files' SHA-256) into dir, creating it; each file is
// written atomically.
func writeArtifact(dir string, a Approach, models [][]byte, enc *Encoding, m *Manifest) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write runtime model: %w", err)
	}
	m.Models = m.Models[:0]
	for k, b := range models {
		name := modelFileName(a, k)
		if err := atomicfile.WriteFile(filepath.Join(dir, name), b); err != nil {
			return fmt.Errorf("write runtime model: %w", err)
		}
		m.Models = append(m.Models, FileDigest{Name: name, SHA256: digestOf(b)})
	}
	eb, err := json.MarshalIndent(enc, "", " ")
	if err != nil {
		return fmt.Errorf("write runtime model: encoding: %w", err)
	}
	eb = append(eb, '\n')
	if err := atomicfile.WriteFile(filepath.Join(dir, EncodingFile), eb); err != nil {
		return fmt.Errorf("write runtime model: %w", err)
	}
	m.Encoding = FileDigest{Name: EncodingFile, SHA256: digestOf(eb)}
	return writeJSON(filepath.Join(dir, ManifestFile), m)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadManifest reads dir's manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("open runtime model: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("open runtime model %s: manifest: %w", dir, err)
	}
	if m.Kind != Kind || m.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("open runtime model %s: %w: kind %q, schema version %d", dir, ErrArtifact, m.Kind, m.SchemaVersion)
	}
	return &m, nil
}

// readChecked reads dir/f and checks its SHA-256 (ErrDigest).
func readChecked(dir string, f FileDigest) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.Base(f.Name)))
	if err != nil {
		return nil, fmt.Errorf("open runtime model: %w", err)
	}
	if got := digestOf(b); got != f.SHA256 {
		return nil, fmt.Errorf("open runtime model %s: %w: %s has sha256 %s, manifest says %s", dir, ErrDigest, f.Name, got, f.SHA256)
	}
	return b, nil
}

// Open loads a run-time model directory with the pure-Go evaluator (no
// libxgboost), checking every file's SHA-256 (ErrDigest), the kind,
// schema version and feature list (ErrArtifact).
func Open(dir string) (*Model, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	want := FeatureNames()
	if len(man.Features) != len(want) {
		return nil, fmt.Errorf("open runtime model %s: %w: %d features, this code has %d", dir, ErrArtifact, len(man.Features), len(want))
	}
	for i, f := range man.Features {
		if f.Name != want[i] {
			return nil, fmt.Errorf("open runtime model %s: %w: feature %d is %s, want %s", dir, ErrArtifact, i, f.Name, want[i])
		}
	}
	a, err := ParseApproach(man.Approach)
	if err != nil {
		return nil, fmt.Errorf("open runtime model %s: %w", dir, err)
	}
	m := &Model{Manifest: *man, approach: a}
	if m.loc, err = time.LoadLocation(man.Zone); err != nil {
		return nil, fmt.Errorf("open runtime model %s: zone: %w", dir, err)
	}
	eb, err := readChecked(dir, man.Encoding)
	if err != nil {
		return nil, err
	}
	m.Encoding = &Encoding{}
	if err := json.Unmarshal(eb, m.Encoding); err != nil {
		return nil, fmt.Errorf("open runtime model %s: encoding: %w", dir, err)
	}
	nb := len(man.Edges) - 1
	wantModels := 1
	if a == ApproachHeads {
		wantModels = nb - 1
	}
	if nb < 2 || len(man.Models) != wantModels {
		return nil, fmt.Errorf("open runtime model %s: %w: %d bins, %d model files for %s", dir, ErrArtifact, nb, len(man.Models), a)
	}
	for _, f := range man.Models {
		b, err := readChecked(dir, f)
		if err != nil {
			return nil, err
		}
		if a == ApproachSoftprob {
			if m.softprob, err = xgbjson.ParseMulti(b); err != nil {
				return nil, fmt.Errorf("open runtime model %s: %w", dir, err)
			}
			if m.softprob.NumClass != nb || m.softprob.NumFeature != len(want) {
				return nil, fmt.Errorf("open runtime model %s: %w: %d classes, %d features", dir, ErrArtifact, m.softprob.NumClass, m.softprob.NumFeature)
			}
			continue
		}
		h, err := xgbjson.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("open runtime model %s: %s: %w", dir, f.Name, err)
		}
		if !h.Logistic || h.NumFeature != len(want) {
			return nil, fmt.Errorf("open runtime model %s: %w: %s is not a logistic head over %d features", dir, ErrArtifact, f.Name, len(want))
		}
		m.heads = append(m.heads, h)
	}
	return m, nil
}
