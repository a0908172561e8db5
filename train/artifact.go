package train

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mirage-hpc/mirage/internal/atomicdir"
	"os"
	"path/filepath"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train/xgbjson"
)

// Artifact file names.
const (
	ModelFile    = "model.json"
	ManifestFile = "manifest.json"
	CVFile       = "cv.json"
)

// Errors of Open and Artifact.Check.
var (
	// ErrDigest means model.json does not match the manifest's SHA-256.
	ErrDigest = errors.New("model digest mismatch")
	// ErrFeatures means a feature table's names, order or schema version
	// differ from the manifest's.
	ErrFeatures = errors.New("feature table does not match the model")
)

// Manifest is manifest.json.
type Manifest struct {
	Kind string `json:"kind"`
	// Target is r, interrupt, wait (Target) or estimate; "r_hours" in
	// manifests written before targets existed means r.
	Target string `json:"target"`
	// OperatingPoint is the rule parameter chosen on the training data
	// for the overlap budget (absent without cross-validation).
	OperatingPoint *OperatingPoint `json:"operating_point,omitempty"`
	// Weighted reports whether training used the samples' row weights.
	Weighted             bool               `json:"weighted"`
	Features             []features.Feature `json:"features"`
	FeatureSchemaVersion int                `json:"feature_schema_version"`
	Rows                 int                `json:"rows"`
	Windows              int                `json:"windows"`
	ChainNodes           []int32            `json:"chain_nodes"`
	TimeRange            [2]int64           `json:"time_range_unix"` // first and last window start
	Protocol             string             `json:"protocol"`
	TraceDigest          string             `json:"trace_sha256"`
	SimConfig            json.RawMessage    `json:"sim_config,omitempty"`
	Params               Params             `json:"params"`
	Rounds               int                `json:"rounds"`
	CV                   *CVResult          `json:"cv,omitempty"`
	Seed                 uint64             `json:"seed"`
	Versions             map[string]string  `json:"versions"`
	ModelSHA256          string             `json:"model_sha256"`
	// RuntimeModel and RuntimeModelSHA256 are the run-time model whose
	// medians the features.ModelEstimateName column was computed with
	// (its directory and model file's SHA-256, from the samples'
	// metadata); a policy must compute the column with that model. Empty
	// when the model has no such column.
	RuntimeModel       string `json:"runtime_model,omitempty"`
	RuntimeModelSHA256 string `json:"runtime_model_sha256,omitempty"`
}

// KindEstimate is the manifest kind of `train --model estimate`: no
// model file, only the chosen margin of the scheduler's estimate.
const KindEstimate = "estimate"

// ArtifactFiles are the names a model directory holds (filepath.Match
// patterns): WriteArtifact replaces a directory holding only these and
// refuses any other (atomicdir.ErrForeign).
var ArtifactFiles = []string{ModelFile, ManifestFile, CVFile}

// WriteArtifact writes model.json (unless m.Kind is KindEstimate),
// cv.json (when m.CV is set) and manifest.json (with model.json's
// SHA-256) as the directory dir, as a unit: the files go into a temporary
// directory beside dir that replaces dir only when complete (atomicdir),
// so a crash leaves the previous model directory as it was, and a
// concurrent writer of dir fails (atomicfile.ErrLocked).
func WriteArtifact(dir string, model []byte, m *Manifest) error {
	d, err := atomicdir.Create(dir, ArtifactFiles...)
	if err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	defer d.Abort()
	if m.Kind != KindEstimate {
		sum := sha256.Sum256(model)
		m.ModelSHA256 = hex.EncodeToString(sum[:])
		if err := os.WriteFile(d.File(ModelFile), model, 0o644); err != nil {
			return fmt.Errorf("write artifact: %w", err)
		}
	}
	if m.CV != nil {
		b, err := json.MarshalIndent(m.CV, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(d.File(CVFile), append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("write artifact: %w", err)
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(d.File(ManifestFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	return d.Commit()
}

// Artifact is a loaded model directory.
type Artifact struct {
	Manifest Manifest
	Model    *xgbjson.Model
}

// Open reads dir's manifest and model, checks the model's SHA-256 (an
// error wrapping ErrDigest on mismatch) and parses it with the pure-Go
// evaluator.
func Open(dir string) (*Artifact, error) {
	mb, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("open model: %w", err)
	}
	var a Artifact
	if err := json.Unmarshal(mb, &a.Manifest); err != nil {
		return nil, fmt.Errorf("open model %s: %w: manifest: %w", dir, ErrBadModel, err)
	}
	if a.Manifest.Kind == KindDQN {
		return nil, fmt.Errorf("open model %s: %w: %w", dir, ErrBadModel, ErrDQNModel)
	}
	if a.Manifest.Kind == KindEstimate {
		if a.Manifest.OperatingPoint == nil {
			return nil, fmt.Errorf("open model %s: %w: an estimate manifest without operating_point", dir, ErrBadModel)
		}
		return &a, nil // no model file
	}
	model, err := os.ReadFile(filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, fmt.Errorf("open model: %w", err)
	}
	sum := sha256.Sum256(model)
	if got := hex.EncodeToString(sum[:]); got != a.Manifest.ModelSHA256 {
		return nil, fmt.Errorf("open model %s: %w: sha256 %s, manifest says %s", dir, ErrDigest, got, a.Manifest.ModelSHA256)
	}
	if a.Model, err = xgbjson.Parse(model); err != nil {
		return nil, fmt.Errorf("open model %s: %w: %w", dir, ErrBadModel, err)
	}
	if a.Model.NumFeature != len(a.Manifest.Features) {
		return nil, fmt.Errorf("open model %s: %w: model has %d features, manifest %d", dir, ErrBadModel, a.Model.NumFeature, len(a.Manifest.Features))
	}
	return &a, nil
}

// Check returns a *FeatureMismatchError (matching ErrFeatures) unless
// names and schemaVersion are exactly the manifest's.
func (a *Artifact) Check(names []string, schemaVersion int) error {
	want := make([]string, len(a.Manifest.Features))
	for i, f := range a.Manifest.Features {
		want[i] = f.Name
	}
	return CheckFeatures(names, schemaVersion, want, a.Manifest.FeatureSchemaVersion)
}

// Predict returns r in hours for every row of s after Check.
func (a *Artifact) Predict(s *features.Samples, schemaVersion int) ([]float32, error) {
	if err := a.Check(s.Names, schemaVersion); err != nil {
		return nil, err
	}
	return a.Model.PredictColumns(nil, s.Features), nil
}

// CheckRuntime returns an error matching ErrFeatures unless the samples
// of meta were built with the run-time model the model was trained with
// (both with none, or the same model file by SHA-256): their
// features.ModelEstimateName column, computed with another run-time
// model, would mean something else under the same name.
func (a *Artifact) CheckRuntime(meta SamplesMeta) error {
	if meta.RuntimeSHA256 == a.Manifest.RuntimeModelSHA256 {
		return nil
	}
	return fmt.Errorf("%w: the samples' %s column comes from run-time model %s, the model was trained with %s",
		ErrFeatures, features.ModelEstimateName, describeRuntime(meta.RuntimeModel, meta.RuntimeSHA256),
		describeRuntime(a.Manifest.RuntimeModel, a.Manifest.RuntimeModelSHA256))
}

// describeRuntime names a run-time model for CheckRuntime's message.
func describeRuntime(dir, sha string) string {
	if sha == "" {
		return "none"
	}
	return fmt.Sprintf("%s (sha256 %s)", dir, sha)
}
