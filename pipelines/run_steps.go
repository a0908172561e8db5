package pipelines

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/internal/digest"
	"github.com/mirage-hpc/mirage/reports"
)

// pipelineRun is one Run in progress: the executor, the results so far
// and what the later stages read of the earlier ones.
type pipelineRun struct {
	s   *Study
	o   RunOptions
	ex  Executor
	env *runEnv
	// results are every stage's, in the order run.
	results []StageResult
	// ingested is the ingest stage, when there is one: what reads the
	// trace comes after it.
	ingested []StageResult
	// traceKey is the trace's content digest: the same trace gives the
	// same keys however it was made. "" when unknown: a status before
	// ingest ran, or an ingest submitted to Slurm (the stages after it
	// are then submitted with unknown keys).
	traceKey string
	// calibratedProfile says the study's profile is the calibrate
	// stage's.
	calibratedProfile bool
	// models are the trained models' policies (KIND:DIR, DIR as
	// r.o.models names it).
	models []string
}

func newPipelineRun(s *Study, o RunOptions) *pipelineRun {
	ex := o.Executor
	if ex == nil {
		ex = localExecutor{}
	}
	return &pipelineRun{s: s, o: o, ex: ex, env: &runEnv{study: s, trace: o.Trace, o: o}}
}

// do runs one stage after the stages it reads.
func (r *pipelineRun) do(ctx context.Context, st stage, after ...StageResult) (StageResult, error) {
	res, err := r.ex.run(ctx, r.env, []stage{st}, after)
	if err != nil {
		return StageResult{}, err
	}
	r.results = append(r.results, res[0])
	return res[0], nil
}

// ingest runs the ingest stage of the study's trace.inputs (keys: their
// digests) or trace.synth when the run has no trace, which then is the
// stage's output.
func (r *pipelineRun) ingest(ctx context.Context, inputKeys []string) error {
	if r.o.Trace != "" {
		return nil
	}
	s := r.s
	spec := s.Trace
	spec.Inputs = nil // their contents are the inputs: a moved file is the same input
	res, err := r.do(ctx, stage{name: "ingest", config: spec, inputs: inputKeys,
		run: func(ctx context.Context, dir string) error { return ingestTrace(ctx, s, dir) }})
	if err != nil {
		return err
	}
	r.o.Trace = filepath.Join(res.Dir, "trace.parquet")
	r.ingested = []StageResult{res}
	return nil
}

// checkTrace computes the trace's key where the trace can be read, and
// checks its fit (Study.CheckFit) before any stage simulates it.
func (r *pipelineRun) checkTrace() error {
	var err error
	if (!r.o.DryRun && r.ex.runsHere()) || fileExists(r.o.Trace) {
		if r.traceKey, err = digest.File(r.o.Trace); err != nil {
			return err
		}
	}
	if !r.o.DryRun && fileExists(r.o.Trace) {
		return checkTraceFit(r.s, r.o.Trace)
	}
	return nil
}

// calibrate runs the calibrate stage when the study asks for it
// (cluster.calibrate), in this process whatever the executor (its
// profile sets every later stage's key), and makes the fitted profile
// the run's: the study and its protocols (c) from then on.
func (r *pipelineRun) calibrate(ctx context.Context, c *checked) error {
	if !r.s.Cluster.Calibrate {
		return nil
	}
	st, err := calibrateStage(r.s, c.trainP, c.valP, r.traceKey, r.o)
	if err != nil {
		return err
	}
	res, err := localExecutor{}.run(ctx, r.env, []stage{st}, r.ingested)
	if err != nil {
		return err
	}
	r.results = append(r.results, res[0])
	s, err := r.s.calibrated(res[0].Dir)
	if err != nil || s == r.s {
		return err
	}
	if c.trainP, c.valP, err = s.Protocols(); err != nil {
		return err
	}
	r.s, r.env.study, r.calibratedProfile = s, s, true
	return nil
}

// analyze runs the trace analysis (analyze/) when the study asks for
// it; nil when it does not.
func (r *pipelineRun) analyze(ctx context.Context) (*StageResult, error) {
	if !r.s.Analyze {
		return nil, nil
	}
	res, err := r.do(ctx, analyzeStage(r.s, r.traceKey, r.o), r.ingested...)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// train runs the training period's features and then every model of
// the study, at once as the executor allows, and names the models'
// policies (r.o.models).
func (r *pipelineRun) train(ctx context.Context, c checked) ([]StageResult, error) {
	s := r.s
	feats, err := r.do(ctx, featuresStage("features-train", c.trainP, r.traceKey, c.rt, r.o), r.ingested...)
	if err != nil {
		return nil, err
	}
	samplesPath := filepath.Join(feats.Dir, "samples.parquet")
	modelStages := make([]stage, len(s.Models))
	for i, m := range s.Models {
		modelStages[i] = modelStage(s, m, c.trainP, feats, samplesPath, r.traceKey, r.o)
		if m.Kind == "dqn" {
			modelStages[i].after = &r.ingested
		}
	}
	trained, err := r.ex.run(ctx, r.env, modelStages, []StageResult{feats})
	r.results = append(r.results, trained...)
	if err != nil {
		return trained, err
	}
	r.o.models = modelNames{}
	for i, m := range s.Models {
		r.models = append(r.models, modelPolicy(m, r.o.models.add(r.o.Out, filepath.Join(trained[i].Dir, modelName(m)))))
	}
	return trained, nil
}

// evaluate runs the evaluation of the study's policies (or the default
// baselines and oracles) and the trained models on the validation
// period.
func (r *pipelineRun) evaluate(ctx context.Context, c checked, trained []StageResult) (StageResult, error) {
	s := r.s
	policies := slices.Clone(s.Policies)
	if len(policies) == 0 {
		policies = []string{"reactive", "avg", "slurm-estimate", "oracle", "oracle-cost"}
	}
	policies = append(policies, r.models...)
	inputs := []string{r.traceKey}
	for _, t := range trained {
		inputs = append(inputs, t.Key)
	}
	inputs = append(inputs, c.dirInputs...)
	return r.do(ctx, evaluateStage(s, c.valP, policies, inputs, r.o), append(slices.Clone(r.ingested), trained...)...)
}

// report renders the report of the evaluation ev, with the predictions,
// the DQNs' training curves and the analysis page when there are any.
func (r *pipelineRun) report(ctx context.Context, c checked, ev StageResult, trained []StageResult, predictions []string, predicted []StageResult,
	analysis *StageResult) error {
	s, o := r.s, r.o
	var dqns []string // the report draws their training curves
	for i, m := range s.Models {
		if m.Kind == "dqn" {
			dqns = append(dqns, filepath.Join(trained[i].Dir, modelName(m)))
		}
	}
	// The trace: its wait-time CDF and the fidelity replay (whose profile
	// and months the evaluation's key covers).
	repInputs := []string{ev.Key, r.traceKey}
	for _, p := range predicted {
		repInputs = append(repInputs, p.Key)
	}
	analysisPage := ""
	if analysis != nil {
		repInputs = append(repInputs, analysis.Key)
		analysisPage = filepath.Join(analysis.Dir, AnalysisPage)
	}
	res, err := r.do(ctx, stage{name: "report", config: nil, inputs: repInputs,
		run: func(ctx context.Context, dir string) error {
			fid, sum, err := measureFidelity(ctx, s, c.trainP, c.valP, o)
			if err != nil {
				return err
			}
			return renderReport(ctx, ev.Dir, dir, reportOptions{trace: o.Trace, predictions: predictions, dqn: dqns, analysis: analysisPage,
				study: s.Name, budgetH: time.Duration(s.Budget.Overlap).Hours(), decision: time.Duration(s.Grid.Decision),
				fidelity: fid, fidelitySummary: &sum, version: o.Version,
				grounds: reports.Grounds{MinSpearman: s.Grounds.MinSpearman, NegligibleH: time.Duration(s.Grounds.Negligible).Hours(),
					MaxChainRatio: s.Grounds.MaxChainRatio,
					Calibrated:    r.calibratedProfile}}, o.Logger)
		}}, append([]StageResult{ev}, predicted...)...)
	if err != nil || r.o.DryRun && !res.Cached || !r.ex.runsHere() {
		return err
	}
	// A finished report's verdict, also under status (a dry run).
	if g, err := reports.ReadGrounds(res.Dir); err == nil {
		r.results[len(r.results)-1].Grounds = &g
	}
	return nil
}
