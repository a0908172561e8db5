package dqn

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/mirage-hpc/mirage/internal/atomicdir"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
)

// Artifact file names.
const (
	WeightsFile  = "model.safetensors"
	ManifestFile = "manifest.json"
	CurveFile    = "curve.csv"
)

// ErrDigest means a file does not match the manifest's SHA-256. It is
// train.ErrDigest: one error, and one exit status, for every model kind.
var ErrDigest = train.ErrDigest

// Manifest is manifest.json of a DQN model directory.
type Manifest struct {
	Kind                 string             `json:"kind"` // "dqn"
	Features             []features.Feature `json:"features"`
	FeatureSchemaVersion int                `json:"feature_schema_version"`
	Standardisation      Stats              `json:"standardisation"`
	Architecture         Architecture       `json:"architecture"`
	Config               Config             `json:"hyper_parameters"`
	Seed                 uint64             `json:"seed"`
	Protocol             string             `json:"protocol,omitempty"`
	// ProtocolSpec is the protocol trained on, with any overrides.
	ProtocolSpec *features.Protocol `json:"protocol_spec,omitempty"`
	TraceDigest  string             `json:"trace_sha256,omitempty"`
	Training     TrainingSummary    `json:"training"`
	// OperatingPoint is the bias on the advantage of submitting chosen
	// for an overlap budget on held-out training windows (ChooseBias);
	// absent: the greedy rule.
	OperatingPoint *train.OperatingPoint `json:"operating_point,omitempty"`
	Versions       map[string]string     `json:"versions,omitempty"`
	// Seal covers the directory: model.safetensors, model.onnx, curve.csv
	// and this manifest (train.Seal).
	train.Seal
}

// Architecture describes the MLP: Layers are the sizes from input to
// output; hidden layers use Activation, the output is linear. Outputs are
// the Q-values of Actions.
type Architecture struct {
	Layers     []int    `json:"layers"`
	Activation string   `json:"activation"`
	Actions    []string `json:"actions"`
	Input      string   `json:"input"`
}

// TrainingSummary summarises the training curve.
type TrainingSummary struct {
	Episodes  int `json:"episodes"`
	Decisions int `json:"decisions"`
	GradSteps int `json:"grad_steps"`
	// BestValidReturn is the best mean greedy return on the held-out
	// windows (absent when none were validated).
	BestValidReturn *float64 `json:"best_valid_return,omitempty"`
	// ValidReactive and ValidOracle are the reactive policy's and the
	// hindsight oracle's mean returns on the same held-out windows
	// (absent without held-out windows).
	ValidReactive  *float64 `json:"valid_reactive_return,omitempty"`
	ValidOracle    *float64 `json:"valid_oracle_return,omitempty"`
	EarlyStopped   bool     `json:"early_stopped"`
	LastReturnMean float64  `json:"last_return_mean"` // over the last 10% of episodes
}

// Summarise fills a TrainingSummary from a Result.
func Summarise(r *Result) TrainingSummary {
	s := TrainingSummary{Episodes: len(r.Curve), Decisions: r.Decisions, GradSteps: r.GradSteps, EarlyStopped: r.Stopped}
	if len(r.ValidStart) > 0 {
		s.ValidReactive, s.ValidOracle = &r.ValidReactive, &r.ValidOracle
	}
	if !math.IsInf(r.BestValid, 0) {
		best := r.BestValid
		s.BestValidReturn = &best
	}
	if n := len(r.Curve); n > 0 {
		k := max(n/10, 1)
		for _, c := range r.Curve[n-k:] {
			s.LastReturnMean += c.Return / float64(k)
		}
	}
	return s
}

// Tensors returns net's parameters as F32 tensors l{i}.weight [out, in]
// and l{i}.bias [out].
func (m *MLP) Tensors() []Tensor {
	var ts []Tensor
	for l := range m.W {
		in, out := m.Sizes[l], m.Sizes[l+1]
		ts = append(ts,
			Tensor{Name: fmt.Sprintf("l%d.weight", l), Shape: []int{out, in}, Data: toF32(m.W[l])},
			Tensor{Name: fmt.Sprintf("l%d.bias", l), Shape: []int{out}, Data: toF32(m.B[l])})
	}
	return ts
}

func toF32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// mlpFromTensors rebuilds an MLP of the given sizes (CheckArchitecture's)
// from exactly its tensors l{i}.weight [out, in] and l{i}.bias [out], all
// finite; it checks every shape before it allocates the network.
func mlpFromTensors(sizes []int, ts []Tensor) (*MLP, error) {
	byName := map[string]Tensor{}
	for _, t := range ts {
		byName[t.Name] = t
	}
	if len(ts) != 2*(len(sizes)-1) {
		return nil, fmt.Errorf("dqn: %d tensors for the %d layers of sizes %v", len(ts), len(sizes)-1, sizes)
	}
	for l := range len(sizes) - 1 {
		w, okw := byName[fmt.Sprintf("l%d.weight", l)]
		b, okb := byName[fmt.Sprintf("l%d.bias", l)]
		if !okw || !okb || !slices.Equal(w.Shape, []int{sizes[l+1], sizes[l]}) || !slices.Equal(b.Shape, []int{sizes[l+1]}) {
			return nil, fmt.Errorf("dqn: layer %d missing or misshapen for sizes %v", l, sizes)
		}
		for _, t := range []Tensor{w, b} {
			for i, v := range t.Data {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return nil, fmt.Errorf("dqn: tensor %s: value %d is %v", t.Name, i, v)
				}
			}
		}
	}
	m := zeroMLP(sizes)
	for l := range m.W {
		for i, v := range byName[fmt.Sprintf("l%d.weight", l)].Data {
			m.W[l][i] = float64(v)
		}
		for i, v := range byName[fmt.Sprintf("l%d.bias", l)].Data {
			m.B[l][i] = float64(v)
		}
	}
	return m, nil
}

// ArtifactFiles are the names a DQN model directory holds: WriteArtifact
// replaces a directory holding only these and refuses any other
// (atomicdir.ErrForeign).
var ArtifactFiles = []string{WeightsFile, ONNXFile, CurveFile, ManifestFile}

// WriteArtifact writes model.safetensors, model.onnx (EncodeONNX with
// m.Versions as metadata), curve.csv (when curve is not nil) and
// manifest.json (sealing the others: train.Seal) as the directory dir,
// as a unit: the files go into a temporary directory beside dir that replaces
// dir only when complete (atomicdir), so a crash leaves the previous model
// directory as it was.
func WriteArtifact(dir string, net *MLP, curve []byte, m *Manifest) error {
	w, err := EncodeSafetensors(net.Tensors(), map[string]string{"format": "mirage-dqn"})
	if err != nil {
		return err
	}
	onnx, err := EncodeONNX(net, m.Versions)
	if err != nil {
		return err
	}
	d, err := atomicdir.Create(dir, ArtifactFiles...)
	if err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	defer d.Abort()
	m.Kind = train.KindDQN
	m.Architecture = Architecture{Layers: slices.Clone(net.Sizes), Activation: "relu",
		Actions: []string{"wait", "submit"}, Input: "standardised features"}
	m.Seal = train.Seal{}
	files := map[string][]byte{WeightsFile: w, ONNXFile: onnx}
	if curve != nil {
		files[CurveFile] = curve
	}
	for _, name := range []string{WeightsFile, ONNXFile, CurveFile} {
		b, ok := files[name]
		if !ok {
			continue
		}
		m.Seal.Add(name, b)
		if err := os.WriteFile(d.File(name), b, 0o644); err != nil {
			return fmt.Errorf("write artifact: %w", err)
		}
	}
	b, err := train.MarshalManifest(m, &m.Seal)
	if err != nil {
		return err
	}
	if err := os.WriteFile(d.File(ManifestFile), b, 0o644); err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	return d.Commit()
}

// Model is a loaded DQN model directory.
type Model struct {
	Manifest Manifest
	Net      *MLP
}

// Open reads dir's manifest and weights, checking the seal (the
// manifest's digest, and every file's size, before it is read, and
// SHA-256: an error wrapping ErrDigest, or train.ErrUnsealed for a
// manifest from before seals), the kind (a *train.KindError for another),
// the architecture against its bounds, the features and the
// standardisation (CheckArchitecture, Stats.Check) before the
// weights are read, and the weights against the architecture
// (train.ErrBadModel).
func Open(dir string) (*Model, error) {
	kind, target, err := train.ReadKind(dir)
	if err != nil {
		return nil, err
	}
	if kind != train.KindDQN {
		return nil, &train.KindError{Dir: dir, Kind: kind, Target: target, Want: "a DQN model (kind dqn)"}
	}
	mb, err := train.ReadManifestFile(dir, ManifestFile)
	if err != nil {
		return nil, fmt.Errorf("open dqn model: %w", err)
	}
	var m Model
	if err := json.Unmarshal(mb, &m.Manifest); err != nil {
		return nil, fmt.Errorf("open dqn model %s: %w: manifest: %w", dir, train.ErrBadModel, err)
	}
	layers := m.Manifest.Architecture.Layers
	params, err := CheckArchitecture(layers, len(m.Manifest.Features))
	if err != nil {
		return nil, fmt.Errorf("open dqn model %s: %w: %w", dir, train.ErrBadModel, err)
	}
	if err := m.Manifest.Standardisation.Check(layers[0]); err != nil {
		return nil, fmt.Errorf("open dqn model %s: %w: standardisation: %w", dir, train.ErrBadModel, err)
	}
	if err := m.Manifest.Seal.Verify(dir, WeightsFile); err != nil {
		return nil, fmt.Errorf("open dqn model: %w", err)
	}
	// The weights as F64 values, their header and its padding at most.
	limit := 8 + maxWeightsHeader(len(layers)-1) + 8*params
	wb, err := m.Manifest.Seal.ReadFile(dir, WeightsFile, limit)
	if err != nil {
		return nil, fmt.Errorf("open dqn model: %w", err)
	}
	ts, _, err := DecodeSafetensors(wb)
	if err != nil {
		return nil, fmt.Errorf("open dqn model %s: %w: %w", dir, train.ErrBadModel, err)
	}
	if m.Net, err = mlpFromTensors(layers, ts); err != nil {
		return nil, fmt.Errorf("open dqn model %s: %w: %w", dir, train.ErrBadModel, err)
	}
	return &m, nil
}

// maxWeightsHeader bounds the safetensors header of a network of n layers
// (two tensors each), bytes.
func maxWeightsHeader(n int) int64 { return 4096 + 512*int64(n) }

// Check returns a *train.FeatureMismatchError (matching train.ErrFeatures,
// as for XGBoost models) unless names and schemaVersion are exactly the
// manifest's.
func (m *Model) Check(names []string, schemaVersion int) error {
	want := make([]string, len(m.Manifest.Features))
	for i, f := range m.Manifest.Features {
		want[i] = f.Name
	}
	return train.CheckFeatures(names, schemaVersion, want, m.Manifest.FeatureSchemaVersion)
}

// Q writes the Q-values (wait, submit) of the raw feature vector x into dst.
func (m *Model) Q(dst, x []float64) []float64 {
	s := m.Manifest.Standardisation.Apply(nil, x)
	return m.Net.Forward(dst, s)
}

// Submit reports whether the greedy action at raw features x is submit
// (ties wait).
func (m *Model) Submit(x []float64) bool { return ArgMax(m.Q(nil, x)) == ActionSubmit }

// SubmitAt reports whether to submit at raw features x for a chain of
// nodes nodes: the advantage Q(submit) − Q(wait) reaches the operating
// point's threshold (−bias) for that size, or, without an operating
// point, the greedy action is submit.
func (m *Model) SubmitAt(x []float64, nodes int) bool {
	q := m.Q(nil, x)
	if op := m.Manifest.OperatingPoint; op != nil {
		return q[ActionSubmit]-q[ActionWait] >= op.For(nodes).Threshold
	}
	return ArgMax(q) == ActionSubmit
}
