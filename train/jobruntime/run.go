package jobruntime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/atomicdir"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// ErrOptions means Options are invalid (a usage error).
var ErrOptions = errors.New("runtime model options")

// ErrNoRows means a period holds too few labelled jobs to train or
// cross-validate.
var ErrNoRows = errors.New("too few labelled jobs")

// Options configure Train.
type Options struct {
	// TrainFrom and TrainTo bound the training period [from, to), Unix
	// seconds: its rows are the labelled jobs submitted in it that ended by
	// TrainTo (known when the period ends). Required.
	TrainFrom, TrainTo int64
	// ValidFrom and ValidTo bound the validation period (Unix seconds;
	// both 0: none). Its figures are computed once, after every choice
	// was made on the training period.
	ValidFrom, ValidTo int64
	// Zone is the IANA zone of the hour and weekday features (default UTC).
	Zone    string
	History HistoryOptions
	// Edges are the ratio bin edges (default DefaultEdges).
	Edges []float64
	// Smoothing is the target encoding's prior weight, rows (default
	// DefaultSmoothing); EncodingBlocks the number of time blocks of the
	// out-of-fold encoding of training rows (default 5).
	Smoothing      float64
	EncodingBlocks int
	// K is the number of time-blocked CV folds (default 5) and GapSec the
	// gap between a fold's test block and its training rows (default 3
	// days: longer than any LS6 limit).
	K      int
	GapSec int64
	// Approaches are the approaches compared by CV (default Approaches);
	// the one with the smallest calibration error is kept.
	Approaches []Approach
	Params     Params
	// Version is the code version written into the manifest; TraceDigest
	// the trace file's SHA-256.
	Version, TraceDigest string
	// Logger receives progress (nil: discard).
	Logger *slog.Logger
}

func (o Options) withDefaults() (Options, error) {
	if o.TrainTo <= o.TrainFrom {
		return o, fmt.Errorf("%w: training period [%d, %d) is empty", ErrOptions, o.TrainFrom, o.TrainTo)
	}
	if o.ValidTo < o.ValidFrom || (o.ValidTo > 0 && o.ValidFrom < o.TrainTo) {
		return o, fmt.Errorf("%w: validation period [%d, %d) must start at or after the training period's end %d", ErrOptions, o.ValidFrom, o.ValidTo, o.TrainTo)
	}
	if o.Zone == "" {
		o.Zone = "UTC"
	}
	o.History = o.History.WithDefaults()
	if o.Edges == nil {
		o.Edges = DefaultEdges
	}
	if len(o.Edges) < 3 || o.Edges[0] != 0 || o.Edges[len(o.Edges)-1] != 1 || !slices.IsSorted(o.Edges) {
		return o, fmt.Errorf("%w: bin edges %v: want at least 3, increasing from 0 to 1", ErrOptions, o.Edges)
	}
	if o.Smoothing <= 0 {
		o.Smoothing = DefaultSmoothing
	}
	if o.EncodingBlocks <= 0 {
		o.EncodingBlocks = 5
	}
	if o.K == 0 {
		o.K = 5
	}
	if o.K < 2 {
		return o, fmt.Errorf("%w: %d folds, want at least 2", ErrOptions, o.K)
	}
	if o.GapSec <= 0 {
		o.GapSec = 3 * 86400
	}
	if len(o.Approaches) == 0 {
		o.Approaches = Approaches
	}
	if o.Params == (Params{}) {
		o.Params = DefaultParams()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o, nil
}

// Metrics is metrics.json: the feature list, every approach's and
// baseline's cross-validated figures on the training period, the chosen
// approach, and the validation figures.
type Metrics struct {
	Features []string `json:"features"`
	Approach string   `json:"approach"`
	// Choice says why Approach was chosen.
	Choice string `json:"choice"`
	K      int    `json:"k"`
	GapSec int64  `json:"gap_sec"`
	// CV holds the out-of-fold figures of each approach, then the
	// baselines (limit, user-history), on the training rows.
	CV []Figures `json:"cv"`
	// CVRounds is each approach's median best round count per booster.
	CVRounds map[string][]int `json:"cv_rounds"`
	// Validation holds the final model's and the baselines' figures on the
	// validation period (absent without one).
	Validation []Figures `json:"validation,omitempty"`
	TrainRows  int       `json:"train_rows"`
	ValidRows  int       `json:"validation_rows"`
}

// Result is what Train returns.
type Result struct {
	Manifest *Manifest
	Metrics  *Metrics
}

// dataset is the labelled rows of a period, in Submit order.
type dataset struct {
	rows   []int     // indices into jobs
	ratio  []float64 // per row
	bins   []int     // per row
	runSec []float64 // real run time, seconds (<= limit)
	limSec []float64 // limit, seconds
}

// selectRows returns the labelled jobs submitted in [from, to) that ended
// by endBy (Unix seconds; 0: any End), in order of Submit then index.
func selectRows(jobs []trace.Job, from, to, endBy int64, edges []float64) *dataset {
	d := &dataset{}
	for i := range jobs {
		j := &jobs[i]
		if !Labelled(j) {
			continue
		}
		if s := j.Submit.Unix(); s < from || s >= to || (endBy > 0 && j.End.Unix() > endBy) {
			continue
		}
		d.rows = append(d.rows, i)
	}
	slices.SortStableFunc(d.rows, func(a, b int) int { return jobs[a].Submit.Compare(jobs[b].Submit) })
	for _, i := range d.rows {
		r, run, _ := ratioOf(&jobs[i])
		d.ratio = append(d.ratio, r)
		d.bins = append(d.bins, binOf(edges, r))
		d.runSec = append(d.runSec, float64(run))
		d.limSec = append(d.limSec, float64(jobs[i].TimelimitSec))
	}
	return d
}

func (d *dataset) pick(idx []int) *dataset {
	s := &dataset{}
	for _, i := range idx {
		s.rows = append(s.rows, d.rows[i])
		s.ratio = append(s.ratio, d.ratio[i])
		s.bins = append(s.bins, d.bins[i])
		s.runSec = append(s.runSec, d.runSec[i])
		s.limSec = append(s.limSec, d.limSec[i])
	}
	return s
}

// Train cross-validates every approach on the training period, keeps the
// best calibrated, fits it on every training row, writes the artifact
// (manifest.json, the model files, encoding.json, metrics.json and
// calibration.png) into dir, and scores the validation period with the
// written model. The same jobs, options and seed give byte-identical
// files. The directory is replaced as a unit (atomicdir): a failed or
// killed run leaves the previous one as it was; an existing dir holding
// other files than ArtifactFiles is refused.
func Train(ctx context.Context, jobs []trace.Job, dir string, o Options) (*Result, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(o.Zone)
	if err != nil {
		return nil, fmt.Errorf("%w: zone: %w", ErrOptions, err)
	}
	// The directory is written as a unit: into a temporary directory
	// beside it, renamed into place at the end (atomicdir).
	out, err := atomicdir.Create(dir, ArtifactFiles...)
	if err != nil {
		return nil, fmt.Errorf("write runtime model: %w", err)
	}
	defer out.Abort()
	dir = out.Path
	log := o.Logger.With("model", Kind)
	tr := selectRows(jobs, o.TrainFrom, o.TrainTo, o.TrainTo, o.Edges)
	if len(tr.rows) < 10*o.K {
		return nil, fmt.Errorf("%w: %d in the training period for %d folds", ErrNoRows, len(tr.rows), o.K)
	}
	b := newBase(jobs, BuildHistory(jobs, o.History), loc)
	hist, err := HistoryBaseline(jobs)
	if err != nil {
		return nil, err
	}
	log.Info("runtime cv", "train_rows", len(tr.rows), "folds", o.K, "approaches", len(o.Approaches))
	met, err := crossValidate(ctx, jobs, b, tr, hist, o, log)
	if err != nil {
		return nil, err
	}
	chosen := chooseApproach(met, o.Approaches)
	met.Approach = chosen.String()
	man, err := fitFinal(ctx, jobs, b, tr, chosen, met.CVRounds[chosen.String()], o, dir)
	if err != nil {
		return nil, err
	}
	if o.ValidTo > o.ValidFrom {
		va := selectRows(jobs, o.ValidFrom, o.ValidTo, 0, o.Edges)
		met.ValidRows = len(va.rows)
		if met.Validation, err = validate(jobs, dir, va, hist); err != nil {
			return nil, err
		}
	}
	met.TrainRows = len(tr.rows)
	if err := writeJSON(filepath.Join(dir, MetricsFile), met); err != nil {
		return nil, err
	}
	if err := writeCalibrationPlot(filepath.Join(dir, CalibrationFile), met); err != nil {
		return nil, err
	}
	if err := seal(dir, man); err != nil { // now with metrics.json and calibration.png
		return nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, err
	}
	return &Result{Manifest: man, Metrics: met}, nil
}

// chooseApproach returns the approach with the smallest CV calibration
// error (ties: the mean pinball loss, then the order of approaches).
func chooseApproach(met *Metrics, as []Approach) Approach {
	best := as[0]
	var bf *Figures
	for _, a := range as {
		for i := range met.CV {
			f := &met.CV[i]
			if f.Predictor != a.String() {
				continue
			}
			if bf == nil || f.CalibrationError < bf.CalibrationError ||
				(f.CalibrationError == bf.CalibrationError && f.PinballH < bf.PinballH) {
				best, bf = a, f
			}
		}
	}
	if bf != nil {
		met.Choice = fmt.Sprintf("smallest CV calibration error (mean |coverage - level| over %d levels): %s %.4f", len(CalibrationLevels), best, bf.CalibrationError)
	}
	return best
}

// crossValidate scores every approach and both baselines out of fold on
// the training rows, with folds of whole submission days (train.BlockedFolds).
func crossValidate(ctx context.Context, jobs []trace.Job, b *base, tr *dataset, hist []float64, o Options, log *slog.Logger) (*Metrics, error) {
	day := make([]int32, len(tr.rows))
	dayStart := make([]int64, len(tr.rows))
	for i, r := range tr.rows {
		s := jobs[r].Submit.Unix()
		day[i] = int32(s / 86400)
		dayStart[i] = int64(day[i]) * 86400
	}
	folds, err := train.BlockedFolds(day, dayStart, o.K, o.GapSec)
	if err != nil {
		return nil, fmt.Errorf("runtime cv: %w", err)
	}
	nb := len(o.Edges) - 1
	met := &Metrics{Features: FeatureNames(), K: o.K, GapSec: o.GapSec, CVRounds: map[string][]int{}}
	oof := make([][]float32, len(o.Approaches))
	for a := range oof {
		oof[a] = make([]float32, len(tr.rows)*nb)
	}
	rounds := make([][][]int, len(o.Approaches)) // [approach][fold][booster]
	for k, f := range folds {
		fit := tr.pick(f.Train)
		test := tr.pick(f.Test)
		xt := b.oofMatrix(jobs, fit.rows, fit.ratio, o.EncodingBlocks, o.Smoothing)
		xs := b.matrix(jobs, test.rows, FitEncoding(jobs, fit.rows, fit.ratio, o.Smoothing))
		nv := int(float64(len(fit.rows)) * o.Params.ValidShare)
		all := seq(len(fit.rows))
		trIdx, vaIdx := all[:len(all)-nv], all[len(all)-nv:]
		for a, ap := range o.Approaches {
			ft, err := fitApproach(ctx, ap, xt, fit.bins, o.Edges, trIdx, vaIdx, nil, o.Params)
			if err != nil {
				return nil, fmt.Errorf("runtime cv fold %d: %w", k, err)
			}
			p, err := ft.predict(xs, seq(len(test.rows)))
			rounds[a] = append(rounds[a], ft.rounds())
			ft.close()
			if err != nil {
				return nil, fmt.Errorf("runtime cv fold %d: %w", k, err)
			}
			for r, i := range f.Test {
				copy(oof[a][i*nb:(i+1)*nb], p[r*nb:(r+1)*nb])
			}
			log.Info("runtime cv fold", "fold", k, "approach", ap.String(), "train_rows", len(trIdx), "test_rows", len(test.rows),
				"rounds", ft.rounds()[0])
		}
	}
	for a, ap := range o.Approaches {
		met.CV = append(met.CV, scoreDist(ap.String(), o.Edges, oof[a], tr.runSec, tr.limSec))
		met.CVRounds[ap.String()] = medianRounds(rounds[a])
	}
	met.CV = append(met.CV, baselines(tr, hist)...)
	return met, nil
}

func baselines(d *dataset, hist []float64) []Figures {
	h := make([]float64, len(d.rows))
	for i, r := range d.rows {
		h[i] = hist[r]
	}
	return []Figures{scorePoint(BaselineLimit, d.runSec, d.limSec), scorePoint(BaselineHistory, d.runSec, h)}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// medianRounds returns, per booster, the median over folds of its best
// round count (the lower middle for an even count).
func medianRounds(byFold [][]int) []int {
	if len(byFold) == 0 {
		return nil
	}
	out := make([]int, len(byFold[0]))
	for k := range out {
		v := make([]int, len(byFold))
		for f := range byFold {
			v[f] = byFold[f][k]
		}
		slices.Sort(v)
		out[k] = v[(len(v)-1)/2]
	}
	return out
}

// fitFinal fits approach a on every training row with the CV's round
// counts and writes the model files, encoding.json and manifest.json.
func fitFinal(ctx context.Context, jobs []trace.Job, b *base, tr *dataset, a Approach, rounds []int, o Options, dir string) (*Manifest, error) {
	x := b.oofMatrix(jobs, tr.rows, tr.ratio, o.EncodingBlocks, o.Smoothing)
	ft, err := fitApproach(ctx, a, x, tr.bins, o.Edges, seq(len(tr.rows)), nil, rounds, o.Params)
	if err != nil {
		return nil, fmt.Errorf("runtime fit: %w", err)
	}
	defer ft.close()
	models, err := ft.save()
	if err != nil {
		return nil, fmt.Errorf("runtime fit: %w", err)
	}
	lib, _ := xgboost.Version()
	man := &Manifest{
		Kind: Kind, SchemaVersion: SchemaVersion, Approach: a.String(), Edges: o.Edges, Levels: Levels[:],
		Features: Features(), Zone: o.Zone, History: o.History, Smoothing: o.Smoothing, Params: o.Params,
		Rounds: ft.rounds(), Rows: len(tr.rows), TrainPeriod: [2]int64{o.TrainFrom, o.TrainTo},
		TraceDigest: o.TraceDigest, Seed: o.Params.Seed,
		Versions: map[string]string{"mirage": o.Version, "libxgboost": lib.String(), "go": runtime.Version()},
	}
	enc := FitEncoding(jobs, tr.rows, tr.ratio, o.Smoothing)
	if err := writeArtifact(dir, a, models, enc, man); err != nil {
		return nil, err
	}
	return man, nil
}

// validate scores the written model (opened with the pure-Go evaluator,
// as a user would) and the baselines on the validation rows.
func validate(jobs []trace.Job, dir string, va *dataset, hist []float64) ([]Figures, error) {
	m, err := Open(dir)
	if err != nil {
		return nil, err
	}
	pmf, _ := m.Distribution(jobs)
	nb := len(m.Manifest.Edges) - 1
	sub := make([]float32, 0, len(va.rows)*nb)
	for _, i := range va.rows {
		sub = append(sub, pmf[i*nb:(i+1)*nb]...)
	}
	out := []Figures{scoreDist(m.Manifest.Approach, m.Manifest.Edges, sub, va.runSec, va.limSec)}
	return append(out, baselines(va, hist)...), nil
}

// ProtocolPeriod returns the span of a features protocol's windows,
// [first window start, last window start + warm-up + workload), Unix
// seconds: the jobs a protocol's period covers.
func ProtocolPeriod(p features.Protocol) (from, to int64, err error) {
	loc, err := time.LoadLocation(p.TZ)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: protocol %s: zone: %w", ErrOptions, p.Name, err)
	}
	start, err := time.ParseInLocation("2006-01-02T15:04:05", p.Start, loc)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: protocol %s: start: %w", ErrOptions, p.Name, err)
	}
	if p.Windows < 1 {
		return 0, 0, fmt.Errorf("%w: protocol %s: %d windows", ErrOptions, p.Name, p.Windows)
	}
	end := start.Add(time.Duration(p.Windows-1)*p.Interval + p.Warmup + p.Workload)
	return start.Unix(), end.Unix(), nil
}
