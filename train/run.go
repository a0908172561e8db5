package train

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// Options configure Run.
type Options struct {
	Params Params
	// K is the number of CV folds; 0 or 1 skips cross-validation.
	K int
	// GapSec is the fold gap; 0 means the window span from the metadata.
	GapSec int64
	// Version is mirage's version, recorded in the manifest.
	Version string
	// Progress, when set, is called after each fold.
	Progress func(fold, k int)
}

// NewData converts samples into the design matrix with r in hours.
func NewData(s *features.Samples) *Data {
	y := make([]float64, s.Len())
	for i, r := range s.LabelRSec {
		y[i] = float64(r) / 3600
	}
	return &Data{Names: s.Names, Cols: s.Features, Y: y}
}

// Run cross-validates (when opts.K >= 2), fits the final model on every
// row and writes the artifact to dir. The final boosted model uses the
// CV's median round count when early stopping chose one, and p.Rounds
// otherwise.
func Run(ctx context.Context, s *features.Samples, meta SamplesMeta, dir string, opts Options) (*Manifest, error) {
	if s.Len() == 0 {
		return nil, fmt.Errorf("train: no samples")
	}
	if len(s.LabelRSec) != s.Len() {
		return nil, fmt.Errorf("train: %w: no %s column", ErrSamples, features.ColLabelR)
	}
	d := NewData(s)
	p := opts.Params
	gap := opts.GapSec
	if gap <= 0 {
		gap = int64(meta.WindowSpan() / time.Second)
	}
	var cv *CVResult
	if opts.K >= 2 {
		var err error
		cv, err = CrossValidate(ctx, d, s.WindowID, s.WindowStart, s.ChainNodes, opts.K, gap, p, opts.Progress)
		if err != nil {
			return nil, err
		}
	}
	q := p
	if p.Kind == KindXGBoost {
		q.EarlyStopping = 0
		if cv != nil {
			q.Rounds = cv.Rounds
		}
	}
	all := make([]int, s.Len())
	for i := range all {
		all[i] = i
	}
	fit, err := Fit(ctx, d, all, nil, q)
	if err != nil {
		return nil, err
	}
	defer fit.Booster.Close()
	model, err := fit.Booster.Save(xgboost.FormatJSON)
	if err != nil {
		return nil, err
	}
	m := &Manifest{
		Kind: p.Kind.String(), Target: "r_hours", Features: meta.Features, FeatureSchemaVersion: meta.SchemaVersion,
		Rows: s.Len(), Protocol: meta.Protocol, TraceDigest: meta.TraceDigest, SimConfig: meta.SimConfig,
		Params: p, Rounds: fit.Rounds, CV: cv, Seed: p.Seed, Versions: versions(opts.Version),
	}
	wins := map[int32]bool{}
	for _, w := range s.WindowID {
		wins[w] = true
	}
	m.Windows = len(wins)
	for _, c := range s.ChainNodes {
		if !slices.Contains(m.ChainNodes, c) {
			m.ChainNodes = append(m.ChainNodes, c)
		}
	}
	m.TimeRange = [2]int64{slices.Min(s.WindowStart), slices.Max(s.WindowStart)}
	if err := WriteArtifact(dir, model, m); err != nil {
		return nil, err
	}
	return m, nil
}

func versions(mirage string) map[string]string {
	v := map[string]string{"mirage": mirage}
	if lv, err := xgboost.Version(); err == nil {
		v["libxgboost"] = lv.String()
	}
	return v
}
