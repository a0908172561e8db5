package train

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/mirage-hpc/mirage/internal/atomicdir"

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
	// ErrDigest means a model directory does not match its seal: the
	// manifest was changed (its manifest_sha256), or a file it lists is
	// missing or has another size or SHA-256 (see Seal).
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
	// StopHorizonSec is TargetStop's label horizon (Options.StopHorizonSec;
	// absent: the next decision).
	StopHorizonSec int64 `json:"stop_horizon_sec,omitempty"`
	// StopLabel is TargetStop's label kind (Options.StopLabel; absent:
	// StopLabelRate).
	StopLabel StopLabel `json:"stop_label,omitempty"`
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
	// Seal covers the directory: model.json, cv.json and this manifest.
	Seal
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
// SHA-256, sealing the directory: Seal) as the directory dir, as a unit:
// the files go into a temporary directory beside dir that replaces dir
// only when complete (atomicdir), so a crash leaves the previous model
// directory as it was, and a concurrent writer of dir fails
// (atomicfile.ErrLocked).
func WriteArtifact(dir string, model []byte, m *Manifest) error {
	d, err := atomicdir.Create(dir, ArtifactFiles...)
	if err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	defer d.Abort()
	m.Seal = Seal{}
	if m.Kind != KindEstimate {
		sum := sha256.Sum256(model)
		m.ModelSHA256 = hex.EncodeToString(sum[:])
		if err := os.WriteFile(d.File(ModelFile), model, 0o644); err != nil {
			return fmt.Errorf("write artifact: %w", err)
		}
		m.Seal.Add(ModelFile, model)
	}
	if m.CV != nil {
		b, err := json.MarshalIndent(m.CV, "", "  ")
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if err := os.WriteFile(d.File(CVFile), b, 0o644); err != nil {
			return fmt.Errorf("write artifact: %w", err)
		}
		m.Seal.Add(CVFile, b)
	}
	b, err := MarshalManifest(m, &m.Seal)
	if err != nil {
		return err
	}
	if err := os.WriteFile(d.File(ManifestFile), b, 0o644); err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	return d.Commit()
}

// Artifact is a loaded model directory.
type Artifact struct {
	// Dir is the directory it was opened from.
	Dir      string
	Manifest Manifest
	// Model is the tree ensemble; nil for KindEstimate, which predicts
	// nothing.
	Model *xgbjson.Model
}

// Open reads dir's manifest and model, checking the seal (the manifest's
// own digest, then every file's size and SHA-256: an error wrapping
// ErrDigest, or ErrUnsealed for a manifest from before seals), the kind
// (forest, xgboost or estimate; another is a *KindError saying which
// commands take it) and the target, and parses the model with the
// pure-Go evaluator (ErrBadModel when it does not fit the manifest).
func Open(dir string) (*Artifact, error) {
	return open(dir, "a forest, xgboost or estimate model", "forest", "xgboost", KindEstimate)
}

// OpenPredictor is Open for a model that predicts (forest or xgboost), as
// `mirage predict` needs: an estimate margin, like any other kind, is a
// *KindError naming the commands that take it.
func OpenPredictor(dir string) (*Artifact, error) {
	return open(dir, "a model that predicts (forest or xgboost)", "forest", "xgboost")
}

// open is Open for a directory of one of kinds (want describes them).
func open(dir, want string, kinds ...string) (*Artifact, error) {
	kind, target, err := ReadKind(dir)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(kinds, kind) {
		return nil, &KindError{Dir: dir, Kind: kind, Target: target, Want: want}
	}
	mb, err := ReadManifestFile(dir, ManifestFile)
	if err != nil {
		return nil, fmt.Errorf("open model: %w", err)
	}
	a := Artifact{Dir: dir}
	if err := json.Unmarshal(mb, &a.Manifest); err != nil {
		return nil, fmt.Errorf("open model %s: %w: manifest: %w", dir, ErrBadModel, err)
	}
	if err := a.Manifest.Seal.Verify(dir, ModelFile); err != nil {
		return nil, fmt.Errorf("open model: %w", err)
	}
	if a.Manifest.Kind == KindEstimate {
		if t := Target(a.Manifest.Target); t != TargetEstimate && t != TargetEstimateRT && t != TargetFixedLead {
			return nil, fmt.Errorf("open model %s: %w: an estimate manifest of target %q (want %s, %s or %s)", dir, ErrBadModel, t, TargetEstimate, TargetEstimateRT, TargetFixedLead)
		}
		if a.Manifest.OperatingPoint == nil {
			return nil, fmt.Errorf("open model %s: %w: an estimate manifest without operating_point", dir, ErrBadModel)
		}
		if _, ok := a.Manifest.Seal.Files[ModelFile]; ok {
			return nil, fmt.Errorf("open model %s: %w: an estimate manifest with a %s", dir, ErrBadModel, ModelFile)
		}
		return &a, nil // no model file
	}
	t, err := ParseTarget(a.Manifest.Target)
	if err != nil {
		return nil, fmt.Errorf("open model %s: %w: %w", dir, ErrBadModel, err)
	}
	if a.Manifest.Seal.Files[ModelFile].SHA256 != a.Manifest.ModelSHA256 {
		return nil, fmt.Errorf("open model %s: %w: model_sha256 %s, the manifest's files say %s has sha256 %s", dir, ErrDigest, a.Manifest.ModelSHA256, ModelFile, a.Manifest.Seal.Files[ModelFile].SHA256)
	}
	model, err := a.Manifest.Seal.ReadFile(dir, ModelFile, MaxModelFileBytes)
	if err != nil {
		return nil, fmt.Errorf("open model: %w", err)
	}
	if a.Model, err = xgbjson.Parse(model); err != nil {
		return nil, fmt.Errorf("open model %s: %w: %w", dir, ErrBadModel, err)
	}
	if a.Model.NumFeature != len(a.Manifest.Features) {
		return nil, fmt.Errorf("open model %s: %w: model has %d features, manifest %d", dir, ErrBadModel, a.Model.NumFeature, len(a.Manifest.Features))
	}
	if a.Model.Logistic != t.Classification() {
		return nil, fmt.Errorf("open model %s: %w: objective %s does not predict target %s", dir, ErrBadModel, a.Model.Objective, t)
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

// Predict returns the prediction (r in hours, or the target's) for every
// row of s after Check. A model that predicts nothing (KindEstimate) is a
// *KindError; a prediction that is NaN or infinite is an error wrapping
// ErrBadModel naming the row.
func (a *Artifact) Predict(s *features.Samples, schemaVersion int) ([]float32, error) {
	if a.Model == nil {
		return nil, &KindError{Dir: a.Dir, Kind: a.Manifest.Kind, Target: a.Manifest.Target, Want: "a model that predicts (forest or xgboost)"}
	}
	if err := a.Check(s.Names, schemaVersion); err != nil {
		return nil, err
	}
	pred := a.Model.PredictColumns(nil, s.Features)
	for i, p := range pred {
		if math.IsNaN(float64(p)) || math.IsInf(float64(p), 0) {
			return nil, fmt.Errorf("%s: %w: it predicts %v for row %d (window %d, probe time %d)",
				a.Dir, ErrBadModel, p, i, s.WindowID[i], s.ProbeTime[i])
		}
	}
	return pred, nil
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
