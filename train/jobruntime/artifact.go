package jobruntime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/xgbjson"
)

// Kind is the manifest kind of a run-time model.
const Kind = train.KindRuntime

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
	// ErrDigest means the directory does not match its seal (a file or
	// the manifest changed: train.Seal). It is train.ErrDigest: one
	// error, and one exit status, for every model kind.
	ErrDigest = train.ErrDigest
	// ErrArtifact means the directory is not a run-time model this code
	// can read (another kind, schema version, feature list, or bins). It
	// matches train.ErrBadModel.
	ErrArtifact = fmt.Errorf("not a runtime model artifact: %w", train.ErrBadModel)
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
	// Seal covers the directory: the model files, encoding.json,
	// metrics.json, calibration.png and this manifest (train.Seal).
	train.Seal
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
// (last, sealing the files written so far) into dir, creating it; each
// file is written atomically.
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
	return seal(dir, m)
}

// seal writes m as dir/manifest.json, sealing every file of the
// directory it names (model files, encoding.json) and metrics.json and
// calibration.png when they exist.
func seal(dir string, m *Manifest) error {
	m.Seal = train.Seal{}
	names := []string{EncodingFile}
	for _, f := range m.Models {
		names = append(names, f.Name)
	}
	for _, n := range []string{MetricsFile, CalibrationFile} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			names = append(names, n)
		}
	}
	for _, n := range names {
		if err := m.Seal.AddFile(dir, n); err != nil {
			return fmt.Errorf("write runtime model: %w", err)
		}
	}
	b, err := train.MarshalManifest(m, &m.Seal)
	if err != nil {
		return fmt.Errorf("write runtime model: manifest: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ManifestFile), b); err != nil {
		return fmt.Errorf("write runtime model: %w", err)
	}
	return nil
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

// ReadManifest reads dir's manifest.json without checking the seal (Open
// checks it), for the kind and the model's digest (ModelDigest). A
// manifest of another kind or schema version, or larger than
// train.MaxManifestBytes, wraps ErrArtifact or train.ErrBadModel.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := train.ReadBounded(filepath.Join(dir, ManifestFile), train.MaxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("open runtime model: %w", err)
	}
	return decodeManifest(dir, b)
}

func decodeManifest(dir string, b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("open runtime model %s: %w: manifest: %w", dir, ErrArtifact, err)
	}
	if m.Kind != Kind || m.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("open runtime model %s: %w: kind %q, schema version %d", dir, ErrArtifact, m.Kind, m.SchemaVersion)
	}
	return &m, nil
}

// readChecked reads dir/f, sealed by seal, and checks that the seal and
// the manifest's f agree on its SHA-256 (ErrDigest).
func readChecked(dir string, seal *train.Seal, f FileDigest) ([]byte, error) {
	if s, ok := seal.Files[f.Name]; ok && s.SHA256 != f.SHA256 {
		return nil, fmt.Errorf("open runtime model %s: %w: %s: the manifest says sha256 %s and, in its files, %s", dir, ErrDigest, f.Name, f.SHA256, s.SHA256)
	}
	b, err := seal.ReadFile(dir, f.Name, train.MaxModelFileBytes)
	if err != nil {
		return nil, fmt.Errorf("open runtime model: %w", err)
	}
	return b, nil
}

// Open loads a run-time model directory with the pure-Go evaluator (no
// libxgboost), checking the seal (the manifest's digest and every file's
// size and SHA-256: ErrDigest, or train.ErrUnsealed for a manifest from
// before seals), the kind (a *train.KindError for another kind of model
// directory), schema version, feature list and bins (ErrArtifact).
func Open(dir string) (*Model, error) {
	kind, target, err := train.ReadKind(dir)
	if err != nil {
		return nil, fmt.Errorf("open runtime model: %w", err)
	}
	if kind != Kind {
		return nil, &train.KindError{Dir: dir, Kind: kind, Target: target, Want: "a run-time model (kind runtime)"}
	}
	b, err := train.ReadManifestFile(dir, ManifestFile)
	if err != nil {
		return nil, fmt.Errorf("open runtime model: %w", err)
	}
	man, err := decodeManifest(dir, b)
	if err != nil {
		return nil, err
	}
	read := []string{man.Encoding.Name}
	for _, f := range man.Models {
		read = append(read, f.Name)
	}
	if err := man.Seal.Verify(dir, read...); err != nil {
		return nil, fmt.Errorf("open runtime model: %w", err)
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
	if err := checkEdges(man.Edges); err != nil {
		return nil, fmt.Errorf("open runtime model %s: %w: %w", dir, ErrArtifact, err)
	}
	a, err := ParseApproach(man.Approach)
	if err != nil {
		return nil, fmt.Errorf("open runtime model %s: %w: %w", dir, ErrArtifact, err)
	}
	m := &Model{Manifest: *man, approach: a}
	if m.loc, err = time.LoadLocation(man.Zone); err != nil {
		return nil, fmt.Errorf("open runtime model %s: %w: zone: %w", dir, ErrArtifact, err)
	}
	eb, err := readChecked(dir, &man.Seal, man.Encoding)
	if err != nil {
		return nil, err
	}
	m.Encoding = &Encoding{}
	if err := json.Unmarshal(eb, m.Encoding); err != nil {
		return nil, fmt.Errorf("open runtime model %s: %w: encoding: %w", dir, ErrArtifact, err)
	}
	if err := m.Encoding.check(); err != nil {
		return nil, fmt.Errorf("open runtime model %s: %w: encoding: %w", dir, ErrArtifact, err)
	}
	nb := len(man.Edges) - 1
	wantModels := 1
	if a == ApproachHeads {
		wantModels = nb - 1
	}
	if len(man.Models) != wantModels {
		return nil, fmt.Errorf("open runtime model %s: %w: %d bins, %d model files for %s", dir, ErrArtifact, nb, len(man.Models), a)
	}
	for _, f := range man.Models {
		b, err := readChecked(dir, &man.Seal, f)
		if err != nil {
			return nil, err
		}
		if a == ApproachSoftprob {
			if m.softprob, err = xgbjson.ParseMulti(b); err != nil {
				return nil, fmt.Errorf("open runtime model %s: %w: %w", dir, ErrArtifact, err)
			}
			if m.softprob.NumClass != nb || m.softprob.NumFeature != len(want) {
				return nil, fmt.Errorf("open runtime model %s: %w: %d classes, %d features", dir, ErrArtifact, m.softprob.NumClass, m.softprob.NumFeature)
			}
			continue
		}
		h, err := xgbjson.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("open runtime model %s: %w: %s: %w", dir, ErrArtifact, f.Name, err)
		}
		if !h.Logistic || h.NumFeature != len(want) {
			return nil, fmt.Errorf("open runtime model %s: %w: %s is not a logistic head over %d features", dir, ErrArtifact, f.Name, len(want))
		}
		m.heads = append(m.heads, h)
	}
	return m, nil
}

// MaxBins bounds the ratio bins of a run-time model Open loads.
const MaxBins = 256

// checkEdges checks ratio bin edges: 3 to MaxBins+1 of them, from 0 to 1,
// strictly increasing.
func checkEdges(edges []float64) error {
	if len(edges) < 3 || len(edges) > MaxBins+1 {
		return fmt.Errorf("%d bin edges, want 3 to %d", len(edges), MaxBins+1)
	}
	if edges[0] != 0 || edges[len(edges)-1] != 1 {
		return fmt.Errorf("bin edges from %v to %v, want 0 to 1", edges[0], edges[len(edges)-1])
	}
	for i := 1; i < len(edges); i++ {
		if !(edges[i] > edges[i-1]) {
			return fmt.Errorf("bin edge %d (%v) not above edge %d (%v)", i, edges[i], i-1, edges[i-1])
		}
	}
	return nil
}
