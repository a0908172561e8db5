// The stage bodies: what each kind of stage does once the cache says it
// must run (ingest, features, evaluate, report) and their helpers.

package pipelines

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/ingest/synth"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/reports"
	"github.com/mirage-hpc/mirage/sim/replay"
	"github.com/mirage-hpc/mirage/train"
)

// policyInputs returns, for each policy that names a model directory
// (KIND:DIR), the policy and the sha256 of hashOutputs(DIR): the
// evaluation's cache key then follows what its policies load, so a model
// trained again into the same directory reruns it. A model that refers to
// another (a forecast's or a features column's run-time model) records
// that one's digest in its own manifest, so it is covered too.
func policyInputs(policies []string) ([]string, error) {
	var out []string
	for _, p := range policies {
		_, dir, ok := strings.Cut(p, ":")
		if !ok || dir == "" {
			continue
		}
		files, err := hashOutputs(dir)
		if err != nil {
			return nil, fmt.Errorf("%w: policy %s: %w", ErrStudy, p, err)
		}
		b, err := json.Marshal(files) // keys sorted
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", p, err)
		}
		sum := sha256.Sum256(b)
		out = append(out, p+" sha256:"+hex.EncodeToString(sum[:]))
	}
	return out, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ingestTrace ingests the study's trace.inputs into dir/trace.parquet.
func ingestTrace(ctx context.Context, s *Study, dir string) error {
	loc, err := time.LoadLocation(s.Trace.Zone)
	if err != nil {
		return err
	}
	o := ingest.Options{Location: loc, Cluster: s.Trace.Cluster, CoresPerNode: s.Trace.CoresPerNode}
	if s.Trace.Format != "" {
		if o.Format, err = ingest.ParseFormat(s.Trace.Format); err != nil {
			return fmt.Errorf("%w: trace.format: %w", ErrStudy, err)
		}
	}
	if s.Trace.StartTime != "" {
		if o.StartTime, err = time.Parse(time.RFC3339, s.Trace.StartTime); err != nil {
			return err
		}
	}
	inputs := s.InputPaths()
	if s.Trace.Synth != nil {
		in := filepath.Join(dir, "synth.sacct")
		if err := writeSynth(s, loc, in); err != nil {
			return err
		}
		inputs = []string{in}
	}
	_, err = ingest.Run(ctx, inputs, filepath.Join(dir, "trace.parquet"), o)
	return err
}

// writeSynth writes the study's synthetic trace (trace.synth) as sacct
// text to path, its times in loc.
func writeSynth(s *Study, loc *time.Location, path string) error {
	sp := s.Trace.Synth
	opts := synth.DefaultOptions()
	opts.Location, opts.Cluster = loc, cmpOr(s.Trace.Cluster, synth.DefaultCluster)
	if sp.Jobs > 0 {
		opts.Jobs = sp.Jobs
	}
	if sp.Seed > 0 {
		opts.Seed = sp.Seed
	}
	if sp.Nodes > 0 {
		opts.Nodes = sp.Nodes
	}
	if sp.Utilisation > 0 {
		opts.Utilisation = sp.Utilisation
	}
	opts.Start = time.Date(2022, 11, 1, 0, 0, 0, 0, loc)
	if sp.Start != "" {
		t, err := time.ParseInLocation("2006-01-02T15:04:05", sp.Start, loc)
		if err != nil {
			return fmt.Errorf("%w: trace.synth.start: %w", ErrStudy, err)
		}
		opts.Start = t
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if _, err := synth.WriteSacct(bw, opts); err != nil {
			return fmt.Errorf("trace.synth: %w", err)
		}
		return bw.Flush()
	})
}

// defaultCVFolds is the number of time-blocked CV folds the model
// stages use when the study's budget.cv_folds is 0.
const defaultCVFolds = 5

// cvFolds is the study's budget.cv_folds, or defaultCVFolds.
func cvFolds(b BudgetSpec) int {
	if b.CVFolds > 0 {
		return b.CVFolds
	}
	return defaultCVFolds
}

// checkFolds checks, before any work, that the training period's windows
// make folds time-blocked folds with a gap of one window span (what
// the tree models' cross-validation needs; the estimates use time blocks
// without a gap).
func checkFolds(p features.Protocol, folds int) error {
	loc, err := time.LoadLocation(p.TZ)
	if err != nil {
		return err
	}
	start, err := time.ParseInLocation("2006-01-02T15:04:05", p.Start, loc)
	if err != nil {
		return err
	}
	ids := make([]int32, p.Windows)
	starts := make([]int64, p.Windows)
	for i := range ids {
		ids[i], starts[i] = int32(i), start.Add(time.Duration(i)*p.Interval).Unix()
	}
	gap := int64((p.Warmup + p.Workload) / time.Second)
	if _, err := train.BlockedFolds(ids, starts, folds, gap); err != nil {
		fix := "use more windows or a longer stride"
		for k := folds - 1; k >= 2; k-- {
			if _, kerr := train.BlockedFolds(ids, starts, k, gap); kerr == nil {
				fix = fmt.Sprintf("set budget.cv_folds: %d, the most they make, or use more windows or a longer stride", k)
				break
			}
		}
		return fmt.Errorf("%w: periods.train: %d windows every %s cannot make %d cross-validation folds %s apart: %w (%s)",
			ErrStudy, p.Windows, p.Interval, folds, p.Warmup+p.Workload, err, fix)
	}
	return nil
}

// reportOptions are what the report draws beside the evaluation: the
// trace's wait-time CDF (trace), predicted vs actual r
// (predictions files) and the DQNs' training curves (model
// directories).
type reportOptions struct {
	trace       string
	predictions []string
	dqn         []string
	// study, budgetH (hours) and decision are the study's name, overlap
	// budget and decision interval, stated in the report's summary.
	study    string
	budgetH  float64
	decision time.Duration
	// analysis is the analyze stage's page ("" when none), linked from
	// the report's header by a path relative to the report's directory.
	analysis string
	// fidelity is the simulator's fidelity on the study's months (the
	// fidelity stage's), grounds the thresholds a recommendation must
	// clear.
	fidelity *reports.Fidelity
	grounds  reports.Grounds
	// fidelitySummary, when not nil, is written beside the report
	// (FidelityFile).
	fidelitySummary *replay.Summary
	// version is mirage's, stated in the report's footer.
	version string
}

// predictionsNote is the caption note of the predicted-vs-actual figure.
const predictionsNote = "Predictions are on the validation windows' samples (out of sample)."

func renderReport(ctx context.Context, evalDir, dir string, ro reportOptions, log *slog.Logger) error {
	opts := reports.DefaultOptions()
	opts.Logger, opts.Trace, opts.Predictions, opts.DQN = log, ro.trace, ro.predictions, ro.dqn
	opts.Study, opts.OverlapBudgetH, opts.Decision = ro.study, ro.budgetH, ro.decision
	opts.Fidelity, opts.Grounds, opts.Version = ro.fidelity, ro.grounds, ro.version
	if ro.analysis != "" {
		rel, err := filepath.Rel(dir, ro.analysis)
		if err != nil {
			return err
		}
		opts.AnalysisHref = filepath.ToSlash(rel)
	}
	if len(ro.predictions) > 0 {
		opts.PredictionsNote = predictionsNote
	}
	// The report replaces dir as a whole; the evaluation's files are
	// copied in after it.
	if _, err := reports.Render(ctx, evalDir, dir, opts); err != nil {
		return err
	}
	if ro.fidelitySummary != nil {
		b, err := json.MarshalIndent(ro.fidelitySummary, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, FidelityFile), append(b, '\n')); err != nil {
			return err
		}
	}
	for _, f := range []string{"metrics.json", "windows.csv"} {
		b, err := os.ReadFile(filepath.Join(evalDir, f))
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f), b); err != nil {
			return err
		}
	}
	return nil
}
