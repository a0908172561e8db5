package reports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
)

// HTMLFile is the report's page inside the report directory.
const HTMLFile = "report.html"

// DefaultBudgetH is the overlap budget (hours of mean overlap per window)
// when neither Options nor the models' operating points give one.
const DefaultBudgetH = 1.0

// ErrNoEvaluation reports a directory without metrics.json or
// windows.csv (evaluate.ErrNoEvaluation).
var ErrNoEvaluation = evaluate.ErrNoEvaluation

// ErrOutDir reports a report directory that is the evaluation directory
// (the report replaces its directory as a whole).
var ErrOutDir = errors.New("report directory")

// Options controls Render.
type Options struct {
	// Title heads the page; empty means "Mirage evaluation".
	Title string
	// Study names the study (shown in the summary).
	Study string
	// Trace, when set, is the trace (Parquet) the windows came from: its
	// name, date range and wait-time CDF are added.
	Trace string
	// OverlapBudgetH is the mean overlap per window (hours) the
	// recommendation must stay within; 0 means the models' operating
	// points' budget (when they agree), else DefaultBudgetH.
	OverlapBudgetH float64
	// Decision is the decision interval; 0 means the protocol's grid
	// (600 s when it records none).
	Decision time.Duration
	// Seed and Resamples drive the bootstrap intervals; 0 means
	// DefaultSeed and DefaultResamples.
	Seed      uint64
	Resamples int
	// Predictions are `mirage predict` outputs (Parquet, on labelled
	// samples); each is one series of the predicted-vs-actual r scatter.
	Predictions []string
	// PredictionsNote, when set, is appended to that figure's caption.
	PredictionsNote string
	// Formats are the files written per figure ("png", "svg"); nil means
	// both. The page always inlines PNG.
	Formats []string
	// DQN names DQN model directories whose training curve is drawn
	// beside those of the evaluation's dqn:DIR policies (the same
	// directory is drawn once); a missing one is an error.
	DQN []string
	// Version is mirage's version, stated in the page's footer with the
	// dates of the data (never the time of rendering); "" states none.
	Version string
	// AnalysisHref, when set, is a link (relative to the report
	// directory, or absolute) to the trace analysis page, shown in the
	// page header.
	AnalysisHref string
	// Fidelity is the simulator's fidelity on the trace (nil: not
	// measured); Grounds the thresholds a recommendation must clear.
	Fidelity *Fidelity
	Grounds  Grounds
	// Logger receives progress and warnings; nil discards them.
	Logger *slog.Logger
}

// DefaultOptions returns the default options.
func DefaultOptions() Options {
	return Options{Title: "Mirage evaluation", Formats: []string{"png", "svg"}, Seed: DefaultSeed, Resamples: DefaultResamples}
}

// Report is what Render produced.
type Report struct {
	// Dir is the report directory; HTML its page.
	Dir             string           `json:"dir"`
	HTML            string           `json:"html"`
	Study           Study            `json:"study"`
	Recommendations []Recommendation `json:"recommendations"`
	// Fidelity is the simulator's fidelity the grounds were judged on
	// (nil: not measured); Grounds their thresholds.
	Fidelity *Fidelity `json:"fidelity,omitempty"`
	Grounds  Grounds   `json:"grounds"`
	// Stats are every policy's outcomes per chain size over all windows,
	// then per load class.
	Stats   []Stats          `json:"stats"`
	Key     []KeyItem        `json:"key"`
	Figures []Figure         `json:"figures"`
	Notes   []string         `json:"notes"`
	Models  []ModelDir       `json:"models,omitempty"`
	DQN     []DQNModel       `json:"dqn,omitempty"`
	Points  []PointRow       `json:"operating_points,omitempty"`
	Manif   []ModelInfo      `json:"manifests,omitempty"`
	Metrics evaluate.Metrics `json:"-"`
	Rows    []evaluate.Row   `json:"-"`
	labels  *Labels
}

// ModelInfo summarises one forest or xgboost model's manifest.
type ModelInfo struct {
	Policy   string          `json:"policy"`
	Label    string          `json:"label"`
	Dir      string          `json:"dir"`
	Manifest *train.Manifest `json:"manifest"`
}

func withDefaults(o Options) Options {
	d := DefaultOptions()
	if o.Title == "" {
		o.Title = d.Title
	}
	if o.Formats == nil {
		o.Formats = d.Formats
	}
	if o.Seed == 0 {
		o.Seed = d.Seed
	}
	if o.Resamples <= 0 {
		o.Resamples = d.Resamples
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Render reads the evaluation in evalDir (evaluate.ReadMetrics and
// ReadWindows; model directories resolved with Metrics.ModelDir, relative
// to evalDir) and writes the report directory outDir as a unit: its
// figures (PNG and SVG) and report.html are written into a temporary
// directory beside outDir, which then replaces outDir. outDir must not be
// evalDir. A model directory the evaluation names that cannot be found
// or read is an error.
func Render(ctx context.Context, evalDir, outDir string, opts Options) (Report, error) {
	opts = withDefaults(opts)
	if same, err := sameDir(evalDir, outDir); err != nil || same {
		if err == nil {
			err = fmt.Errorf("%w %s is the evaluation directory; give another (e.g. %s)", ErrOutDir, outDir, filepath.Join(evalDir, "report"))
		}
		return Report{}, err
	}
	rep, err := build(ctx, evalDir, opts)
	if err != nil {
		return Report{}, err
	}
	rep.Dir, rep.HTML = outDir, filepath.Join(outDir, HTMLFile)
	err = writeDir(outDir, func(tmp string) error { return writeReport(ctx, tmp, &rep, opts) })
	if err != nil {
		return Report{}, err
	}
	return rep, nil
}

// build reads everything and computes the report's data and figures.
func build(ctx context.Context, evalDir string, opts Options) (Report, error) {
	m, err := evaluate.ReadMetrics(evalDir)
	if err != nil {
		return Report{}, err
	}
	rows, err := evaluate.ReadWindows(evalDir)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Metrics: m, Rows: rows}
	order := policyOrder(rows, m)
	labels := NewLabels(order)
	rep.Key, rep.labels = labels.Key, labels
	dirs, families, err := modelDirs(evalDir, m)
	if err != nil {
		return Report{}, err
	}
	taken := map[string]bool{}
	if rep.DQN, err = findDQN(families, dirs, opts.DQN, taken, opts.Logger); err != nil {
		return Report{}, err
	}
	var manifestFams []string
	for _, f := range families {
		if slices.Contains(modelKinds, evaluate.ParseName(f).Kind) {
			manifestFams = append(manifestFams, f)
		}
	}
	if rep.Models, err = loadModelDirs(manifestFams, dirs, taken); err != nil {
		return Report{}, err
	}
	for _, f := range manifestFams {
		if k := evaluate.ParseName(f).Kind; k == "forest" || k == "xgboost" {
			man, err := train.ReadManifest(dirs[f])
			if err != nil {
				return Report{}, fmt.Errorf("model %s: %w", f, err)
			}
			rep.Manif = append(rep.Manif, ModelInfo{Policy: f, Label: labels.Label(f), Dir: dirs[f], Manifest: man})
		}
	}
	rep.Points = PointRows(rep.Models, m, order)
	var waits []float64
	st := studyFacts(m, rows, opts, rep.Models)
	if opts.Trace != "" {
		jobs, err := trace.ReadAll(opts.Trace)
		if err != nil {
			return Report{}, err
		}
		first, last, dated := int64(0), int64(0), false
		for _, j := range jobs {
			if w, ok := j.Wait(); ok {
				waits = append(waits, w.Hours())
			}
			if j.Submit.IsZero() {
				continue // no submission time: not a date of the trace
			}
			s := j.Submit.Unix()
			if !dated || s < first {
				first = s
			}
			last, dated = max(last, s), true
		}
		st.TraceWaits = len(waits)
		st.Trace, st.TraceJobs = filepath.Base(opts.Trace), len(jobs)
		if dated {
			st.TraceFirst = time.Unix(first, 0).UTC().Format("2006-01-02")
			st.TraceLast = time.Unix(last, 0).UTC().Format("2006-01-02")
		}
	}
	rep.Study = st
	rep.Fidelity, rep.Grounds = opts.Fidelity, opts.Grounds.withDefaults()
	in := &figureInput{chains: groupWindows(rows), all: map[int][]Stats{}, labels: labels, order: order,
		budgetH: st.BudgetH, lambda: m.Lambda, runH: meanRunH(rows), boot: boot{reps: opts.Resamples, seed: opts.Seed},
		grounds: groundsInput{grounds: rep.Grounds, fidelity: opts.Fidelity, trace: opts.Trace != "", waitsKnown: st.TraceWaits}}
	for _, cw := range in.chains {
		for _, p := range order {
			if _, ok := cw.RSec[p]; !ok {
				continue
			}
			s := statsFor(&cw, p, labels.Label(p), "", cw.subset(""), m.Lambda, in.boot)
			in.all[cw.Nodes] = append(in.all[cw.Nodes], s)
		}
		rep.Stats = append(rep.Stats, in.all[cw.Nodes]...)
		for _, lc := range evaluate.LoadClasses {
			idx := cw.subset(lc)
			if len(idx) == 0 {
				continue
			}
			for _, p := range order {
				if _, ok := cw.RSec[p]; ok {
					rep.Stats = append(rep.Stats, statsFor(&cw, p, labels.Label(p), lc, idx, m.Lambda, in.boot))
				}
			}
		}
		rep.Recommendations = append(rep.Recommendations, recommendation(in, cw.Nodes))
	}
	in.recs = rep.Recommendations
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	rep.Figures = []Figure{frontierFigure(in), rCDFFigure(in), zeroFigure(in)}
	if len(waits) > 0 {
		rep.Figures = append(rep.Figures, waitFigure(waits))
	} else {
		rep.Notes = append(rep.Notes, "The trace's wait-time CDF is not drawn: no trace was given (mirage report --trace T.parquet).")
	}
	rep.Figures = append(rep.Figures, stripFigure(in))
	if err := addModelFigures(ctx, &rep, labels, opts); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// addModelFigures appends the predicted-vs-actual scatter, the DQN
// training curves and each model's calibration and CV frontier.
func addModelFigures(ctx context.Context, rep *Report, labels *Labels, opts Options) error {
	var preds []train.Predictions
	var names []string
	for _, path := range opts.Predictions {
		p, err := train.ReadPredictions(ctx, path)
		if err != nil {
			return err
		}
		preds = append(preds, p)
		names = append(names, predictionLabel(p, rep.Models, labels))
	}
	if len(preds) > 0 {
		f := predictionFigure(preds, names)
		if opts.PredictionsNote != "" {
			f.Caption += " " + opts.PredictionsNote
		}
		rep.Figures = append(rep.Figures, f)
	} else {
		rep.Notes = append(rep.Notes, "Predicted vs actual r is not drawn: give mirage predict outputs with mirage report --predictions P.parquet (repeatable).")
	}
	short := func(f Figure, policy string) Figure {
		f.Title = strings.Replace(f.Title, policy, labels.Label(policy), 1)
		return f
	}
	for i := range rep.DQN {
		rep.Figures = append(rep.Figures, short(DQNFigure(&rep.DQN[i]), rep.DQN[i].Policy))
	}
	for i := range rep.Models {
		md := &rep.Models[i]
		if md.CalibrationFigure != "" {
			rep.Figures = append(rep.Figures, short(CalibrationFigure(md), md.Policy))
		}
		if md.FrontierFigure != "" {
			rep.Figures = append(rep.Figures, short(CVFrontierFigure(md), md.Policy))
		}
	}
	return nil
}

// predictionLabel names a predictions file's series: the short label of
// the model it names (the same model digest, or the same directory), else
// the directory's base name, else the file's.
func predictionLabel(p train.Predictions, models []ModelDir, labels *Labels) string {
	if _, sha, ok := strings.Cut(p.Model, " sha256:"); ok && sha != "" {
		for _, m := range models {
			if m.modelSHA256 == sha {
				return labels.Label(m.Policy)
			}
		}
	}
	for _, m := range models {
		if p.ModelDir != "" {
			if same, err := sameDir(p.ModelDir, m.Dir); err == nil && same {
				return labels.Label(m.Policy)
			}
		}
	}
	if p.ModelDir != "" {
		return filepath.Base(p.ModelDir)
	}
	return filepath.Base(p.Path)
}

// recommendation builds chain size n's recommendation from in.all.
func recommendation(in *figureInput, n int) Recommendation {
	all := in.all[n]
	best, ok := recommend(all, in.budgetH)
	r := Recommendation{Nodes: n, Stats: best, WithinBudget: ok}
	reactive := false
	for i := range all {
		s := all[i]
		switch s.Policy {
		case "reactive":
			r.ReactiveH, reactive = s.InterruptionH.Point, true
		case evaluate.OracleName:
			r.Oracle = &s
			g := best.InterruptionH.Point - s.InterruptionH.Point
			r.GapH = &g
		case evaluate.OracleCostName:
			r.OracleCost = &s
			if s.CostH > 0 {
				c := best.CostH / s.CostH
				r.CostRatio = &c
			}
		}
	}
	r.Withheld = withheld(r, reactive, in.grounds)
	r.Recommended = len(r.Withheld) == 0
	r.Next = nextStep(best.Policy)
	if h := in.runH[n]; h > 0 {
		r.RunH, r.LinksPerMonth = round(h), round(HoursPerMonth/h)
	}
	return r
}

// modelDirs resolves every model family of m (in sorted order) against
// evalDir.
func modelDirs(evalDir string, m evaluate.Metrics) (map[string]string, []string, error) {
	dirs := map[string]string{}
	fams := m.ModelFamilies()
	for _, f := range fams {
		d, err := m.ModelDir(evalDir, f)
		if err != nil {
			return nil, nil, err
		}
		dirs[f] = d
	}
	return dirs, fams, nil
}

// findDQN loads the DQN models: the evaluation's dqn:DIR families, then
// the directories of explicit that are not one of them. Any that cannot
// be read is an error.
func findDQN(families []string, dirs map[string]string, explicit []string, taken map[string]bool, log *slog.Logger) ([]DQNModel, error) {
	type cand struct{ policy, dir string }
	var cands []cand
	for _, f := range families {
		if evaluate.ParseName(f).Kind == "dqn" {
			cands = append(cands, cand{f, dirs[f]})
		}
	}
	for _, e := range explicit {
		dup := false
		for _, c := range cands {
			if same, err := sameDir(e, c.dir); err == nil && same {
				dup = true
			}
		}
		if !dup {
			cands = append(cands, cand{"dqn:" + e, e})
		}
	}
	var out []DQNModel
	for _, c := range cands {
		m, err := LoadDQN(c.policy, c.dir, log)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", c.policy, err)
		}
		m.Figure = uniqueStem(DQNFigurePrefix+"-"+slug(filepath.Base(filepath.Clean(c.dir))), taken)
		out = append(out, m)
	}
	return out, nil
}

// policyOrder returns the policies in the rows' order (Replay's), then
// any only in the metrics, sorted.
func policyOrder(rows []evaluate.Row, m evaluate.Metrics) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Policy] {
			seen[r.Policy] = true
			out = append(out, r.Policy)
		}
	}
	var rest []string
	for name := range m.Policies {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// studyFacts collects the summary's facts from the metrics, the rows,
// the options and the models' operating points.
func studyFacts(m evaluate.Metrics, rows []evaluate.Row, opts Options, models []ModelDir) Study {
	st := Study{Name: opts.Study, Lambda: m.Lambda, ChainNodes: evaluate.ChainSizes(rows), LoadWindows: map[string]int{},
		Resamples: opts.Resamples, Seed: opts.Seed}
	var first, last int64
	seen := map[[2]int]bool{}
	for i, r := range rows {
		if i == 0 || r.WindowStart < first {
			first = r.WindowStart
		}
		last = max(last, r.WindowStart)
		k := [2]int{r.ChainNodes, r.Window}
		if !seen[k] {
			seen[k] = true
			st.LoadWindows[evaluate.LoadClass(r.ReactiveRSec)]++
		}
	}
	if len(st.ChainNodes) > 0 {
		st.Windows = len(seen) / len(st.ChainNodes)
	}
	if len(rows) > 0 {
		st.FirstWindow, st.LastWindow = utcTime(first), utcTime(last)
	}
	decision := opts.Decision
	if p := m.Protocol; p != nil {
		st.Protocol, st.Profile, st.Mode, st.PartitionNodes = p.Name, p.Profile, p.Mode, p.Nodes
		st.Interval, st.Warmup, st.Workload = duration(p.Interval), duration(p.Warmup), duration(p.Workload)
		if decision == 0 && p.Grid != nil {
			decision = time.Duration(p.Grid.WithDefaults().DecisionSec) * time.Second
		}
	}
	if m.SimConfig != nil && st.PartitionNodes == 0 {
		st.PartitionNodes = m.SimConfig.Nodes
	}
	if decision == 0 {
		decision = 600 * time.Second
	}
	st.Decision = duration(decision)
	st.BudgetH, st.BudgetFrom = opts.OverlapBudgetH, "given"
	if st.BudgetH <= 0 {
		st.BudgetH, st.BudgetFrom = DefaultBudgetH, "default"
		var budgets []float64
		for _, md := range models {
			if op := md.OperatingPoint; op != nil && op.BudgetH > 0 && !slices.Contains(budgets, op.BudgetH) {
				budgets = append(budgets, op.BudgetH)
			}
		}
		if len(budgets) == 1 {
			st.BudgetH, st.BudgetFrom = budgets[0], "the models' operating points"
		}
	}
	return st
}
