package reports

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
)

// HTMLFile is the report's file name inside the evaluation directory.
const HTMLFile = "report.html"

// Options controls Render.
type Options struct {
	// Title heads the page; empty means "Mirage evaluation".
	Title string
	// Trace, when set, is the trace (Parquet) the windows came from; its
	// wait-time CDF is added.
	Trace string
	// WidthCm and HeightCm are each figure's size; 0 means 16 x 10.
	WidthCm, HeightCm float64
	// Predictions are `mirage predict` outputs (Parquet, on labelled
	// samples); each is one series of the predicted-vs-actual r scatter.
	Predictions []string
	// PredictionsNote, when set, is appended to that figure's caption (for
	// example, which samples the predictions were made on).
	PredictionsNote string
	// Formats are the files written per figure ("png", "svg"); nil means
	// both. The page always inlines PNG.
	Formats []string
	// DQN names DQN model directories (mirage train --model dqn) whose
	// training curve (DIR/curve.csv) is drawn; Render fails when one or its
	// curve.csv is missing or unreadable. The evaluation's dqn:DIR policies
	// are drawn too, from DIR as written (relative to the working
	// directory); one that a directory here names (the same directory, or
	// a path ending in DIR) is drawn from here; any other whose curve
	// cannot be read is skipped with a warning on Logger.
	DQN []string
	// Logger receives warnings; nil discards them.
	Logger *slog.Logger
}

// DefaultOptions returns the default options.
func DefaultOptions() Options {
	return Options{Title: "Mirage evaluation", WidthCm: 16, HeightCm: 10, Formats: []string{"png", "svg"}}
}

// Series is one plotted line, set of points or set of bars.
type Series struct {
	Label string    `json:"label"`
	Kind  string    `json:"kind"` // "step" (CDF), "line" (with points), "curve" (line only), "points", "bars"
	X     []float64 `json:"x"`
	Y     []float64 `json:"y"`
	// Names label bars or points (X is then their position).
	Names []string `json:"names,omitempty"`
	// Panel is the index into Figure.Panels of the panel the series is
	// drawn in.
	Panel int `json:"panel,omitempty"`
	// Faint draws points small and light grey (raw values under a
	// smoothed "curve").
	Faint bool `json:"faint,omitempty"`
}

// Figure is one figure's data and the files it was drawn into.
type Figure struct {
	Name    string `json:"name"` // file stem, e.g. "cdf-interruption"
	Title   string `json:"title"`
	XLabel  string `json:"x_label"`
	YLabel  string `json:"y_label"`
	Caption string `json:"caption"`
	// Panels, when set, stacks the figure into panels sharing the x axis,
	// top to bottom, each with its y-axis label (YLabel is then unused);
	// Series.Panel places each series.
	Panels []string `json:"panels,omitempty"`
	Series []Series `json:"series"`
	// LegendLeft puts the legend at the top left (default: top right).
	LegendLeft bool     `json:"legend_left,omitempty"`
	Files      []string `json:"files,omitempty"` // paths written
}

// ModelInfo summarises one model policy's manifest.
type ModelInfo struct {
	Policy   string          `json:"policy"`
	Dir      string          `json:"dir"`
	Manifest *train.Manifest `json:"manifest,omitempty"`
}

// Protocol summarises the evaluated windows.
type Protocol struct {
	Windows     int            `json:"windows"`
	ChainNodes  []int          `json:"chain_nodes"`
	FirstStart  int64          `json:"first_window_start_unix"`
	LastStart   int64          `json:"last_window_start_unix"`
	Policies    []string       `json:"policies"`
	LoadWindows map[string]int `json:"load_windows"`
}

// Report is what Render produced.
type Report struct {
	HTML     string      `json:"html"`
	Figures  []Figure    `json:"figures"`
	Notes    []string    `json:"notes"`
	Protocol Protocol    `json:"protocol"`
	Models   []ModelInfo `json:"models"`
	DQN      []DQNModel  `json:"dqn,omitempty"`
	// ModelDirs are the model directories the policies name (forest,
	// xgboost, slurm-estimate, dqn) that could be read, and
	// OperatingPoints the operating-points table built from them.
	ModelDirs       []ModelDir       `json:"model_dirs,omitempty"`
	OperatingPoints []PointRow       `json:"operating_points,omitempty"`
	Metrics         evaluate.Metrics `json:"-"`
	Rows            []evaluate.Row   `json:"-"`
}

// ErrNoEvaluation reports a directory without metrics.json or windows.csv.
var ErrNoEvaluation = errors.New("not an evaluation directory")

// Load reads dir/metrics.json and dir/windows.csv.
func Load(dir string) (evaluate.Metrics, []evaluate.Row, error) {
	var m evaluate.Metrics
	b, err := os.ReadFile(filepath.Join(dir, "metrics.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil, fmt.Errorf("%w: %s has no metrics.json (run mirage evaluate -o %s)", ErrNoEvaluation, dir, dir)
	}
	if err != nil {
		return m, nil, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, nil, fmt.Errorf("%s: %w", filepath.Join(dir, "metrics.json"), err)
	}
	f, err := os.Open(filepath.Join(dir, "windows.csv"))
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil, fmt.Errorf("%w: %s has no windows.csv", ErrNoEvaluation, dir)
	}
	if err != nil {
		return m, nil, err
	}
	defer f.Close()
	rows, err := evaluate.ReadCSV(f)
	if err != nil {
		return m, nil, fmt.Errorf("%s: %w", filepath.Join(dir, "windows.csv"), err)
	}
	return m, rows, nil
}

// Render reads the evaluation in dir, draws its figures into dir and
// writes dir/report.html.
func Render(ctx context.Context, dir string, opts Options) (Report, error) {
	d := DefaultOptions()
	if opts.Title == "" {
		opts.Title = d.Title
	}
	if opts.WidthCm <= 0 {
		opts.WidthCm = d.WidthCm
	}
	if opts.HeightCm <= 0 {
		opts.HeightCm = d.HeightCm
	}
	if opts.Formats == nil {
		opts.Formats = d.Formats
	}
	m, rows, err := Load(dir)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Metrics: m, Rows: rows, HTML: filepath.Join(dir, HTMLFile)}
	rep.Protocol = summariseProtocol(rows, m)
	rep.Models = readModels(rep.Protocol.Policies)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if rep.DQN, err = findDQN(rep.Protocol.Policies, opts.DQN, log); err != nil {
		return Report{}, err
	}
	var waits []float64
	if opts.Trace != "" {
		jobs, err := trace.ReadAll(opts.Trace)
		if err != nil {
			return Report{}, err
		}
		for _, j := range jobs {
			if w, ok := j.Wait(); ok {
				waits = append(waits, w.Hours())
			}
		}
	}
	var preds []Predictions
	for _, path := range opts.Predictions {
		p, err := ReadPredictions(ctx, path)
		if err != nil {
			return Report{}, err
		}
		preds = append(preds, p)
	}
	rep.Figures, rep.Notes = Figures(m, rows, waits, opts.Trace != "", preds)
	if opts.PredictionsNote != "" {
		for i := range rep.Figures {
			if rep.Figures[i].Name == PredictionFigureName {
				rep.Figures[i].Caption += " " + opts.PredictionsNote
			}
		}
	}
	for i := range rep.DQN {
		rep.Figures = append(rep.Figures, DQNFigure(&rep.DQN[i]))
	}
	rep.ModelDirs = findModelDirs(rep.Protocol.Policies, rep.DQN, map[string]bool{}, log)
	rep.OperatingPoints = PointRows(rep.ModelDirs, m, rep.Protocol.Policies)
	for i := range rep.ModelDirs {
		md := &rep.ModelDirs[i]
		if md.CalibrationFigure != "" {
			rep.Figures = append(rep.Figures, CalibrationFigure(md))
		}
		if md.FrontierFigure != "" {
			rep.Figures = append(rep.Figures, CVFrontierFigure(md))
		}
	}
	pngs := make([][]byte, len(rep.Figures))
	for i := range rep.Figures {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		f := &rep.Figures[i]
		p, err := newPlots(f)
		if err != nil {
			return Report{}, fmt.Errorf("figure %s: %w", f.Name, err)
		}
		h := figureHeight(f, opts.HeightCm)
		for _, format := range opts.Formats {
			b, err := encode(p, opts.WidthCm, h, format)
			if err != nil {
				return Report{}, fmt.Errorf("figure %s: %w", f.Name, err)
			}
			path := filepath.Join(dir, f.Name+"."+format)
			if err := atomicfile.WriteFile(path, b); err != nil {
				return Report{}, err
			}
			f.Files = append(f.Files, path)
			if format == "png" {
				pngs[i] = b
			}
		}
		if pngs[i] == nil {
			if pngs[i], err = encode(p, opts.WidthCm, h, "png"); err != nil {
				return Report{}, fmt.Errorf("figure %s: %w", f.Name, err)
			}
		}
	}
	page, err := renderHTML(opts.Title, &rep, pngs)
	if err != nil {
		return Report{}, err
	}
	if err := atomicfile.WriteFile(rep.HTML, page); err != nil {
		return Report{}, err
	}
	return rep, nil
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

func summariseProtocol(rows []evaluate.Row, m evaluate.Metrics) Protocol {
	p := Protocol{Windows: m.Windows, Policies: policyOrder(rows, m), LoadWindows: map[string]int{}}
	for i, r := range rows {
		if !slices.Contains(p.ChainNodes, r.ChainNodes) {
			p.ChainNodes = append(p.ChainNodes, r.ChainNodes)
		}
		if i == 0 || r.WindowStart < p.FirstStart {
			p.FirstStart = r.WindowStart
		}
		p.LastStart = max(p.LastStart, r.WindowStart)
		if r.Policy == p.Policies[0] {
			p.LoadWindows[evaluate.LoadClass(r.ReactiveRSec)]++
		}
	}
	slices.Sort(p.ChainNodes)
	return p
}

// baseName splits a sweep suffix "@KEY=VALUE" with a numeric VALUE:
// "forest:DIR@θ=0.5" -> "forest:DIR", "θ", 0.5, true;
// "slurm-estimate@margin=0.25" -> "slurm-estimate", "margin", 0.25, true.
func baseName(policy string) (base, key string, v float64, ok bool) {
	i := strings.LastIndex(policy, "@")
	if i < 0 {
		return policy, "", 0, false
	}
	key, val, found := strings.Cut(policy[i+1:], "=")
	v, err := strconv.ParseFloat(val, 64)
	if !found || key == "" || err != nil {
		return policy, "", 0, false
	}
	return policy[:i], key, v, true
}

// readModels reads the manifest of every model policy "KIND:DIR" whose
// DIR holds one.
func readModels(policies []string) []ModelInfo {
	var out []ModelInfo
	seen := map[string]bool{}
	for _, p := range policies {
		base, _, _, _ := baseName(p)
		kind, dir, ok := strings.Cut(base, ":")
		if !ok || seen[base] || (kind != "forest" && kind != "xgboost") {
			continue
		}
		seen[base] = true
		mi := ModelInfo{Policy: base, Dir: dir}
		if b, err := os.ReadFile(filepath.Join(dir, train.ManifestFile)); err == nil {
			var man train.Manifest
			if json.Unmarshal(b, &man) == nil {
				mi.Manifest = &man
			}
		}
		out = append(out, mi)
	}
	return out
}

// chainPanels sets f's panels, one per chain size, when there is more
// than one (the y label prefixed with the size); it returns each size's
// panel index.
func chainPanels(f *Figure, sizes []int) []int {
	idx := make([]int, len(sizes))
	if len(sizes) < 2 {
		return idx
	}
	for i, n := range sizes {
		f.Panels = append(f.Panels, fmt.Sprintf("%d node(s): %s", n, f.YLabel))
		idx[i] = i
	}
	return idx
}

// Figures computes every figure's data; waits (hours) feed the trace's
// wait-time CDF when haveTrace; preds (one per model) feed the
// predicted-vs-actual r scatter. Notes name the figures skipped. With
// more than one chain size, the CDFs, the load-class bars and the
// trade-off have a panel per chain size: nothing is pooled across sizes.
func Figures(m evaluate.Metrics, rows []evaluate.Row, waits []float64, haveTrace bool, preds []Predictions) ([]Figure, []string) {
	order := policyOrder(rows, m)
	sizes := evaluate.ChainSizes(rows)
	type pk struct {
		policy string
		nodes  int
	}
	byPolicy := map[pk][]evaluate.Row{}
	for _, r := range rows {
		byPolicy[pk{r.Policy, r.ChainNodes}] = append(byPolicy[pk{r.Policy, r.ChainNodes}], r)
	}
	cdfFig := func(name, title, xl string, v func(int64) float64) Figure {
		f := Figure{Name: name, Title: title, XLabel: xl, YLabel: "share of windows",
			Caption: "Empirical CDF over the validation windows, one line per policy" + perChain(sizes) + "."}
		panel := chainPanels(&f, sizes)
		for i, n := range sizes {
			for _, p := range order {
				if rs := byPolicy[pk{p, n}]; len(rs) > 0 {
					x := make([]float64, len(rs))
					for i, r := range rs {
						x[i] = v(r.RSec)
					}
					s := cdf(p, x)
					s.Panel = panel[i]
					f.Series = append(f.Series, s)
				}
			}
		}
		return f
	}
	figs := []Figure{
		cdfFig("cdf-interruption", "Interruption per window", "interruption (h)", evaluate.InterruptionH),
		cdfFig("cdf-overlap", "Overlap per window", "overlap (h)", evaluate.OverlapH),
	}

	bars := Figure{Name: "zero-interruption-by-load", Title: "Windows with zero interruption, by load class",
		XLabel: "policy", YLabel: "share of windows",
		Caption: "Load class by the reactive policy's interruption: light ≤ 2 h, medium 2–12 h, heavy > 12 h" + perChain(sizes) + "."}
	panel := chainPanels(&bars, sizes)
	for i, n := range sizes {
		k := strconv.Itoa(n)
		for _, c := range evaluate.LoadClasses {
			s := Series{Label: c, Kind: "bars", Panel: panel[i]}
			for i, p := range order {
				s.X = append(s.X, float64(i))
				s.Y = append(s.Y, m.Policies[p].ByChain[k].ByLoad[c].ZeroInterruptionShare)
				s.Names = append(s.Names, p)
			}
			bars.Series = append(bars.Series, s)
		}
	}
	figs = append(figs, bars)

	trade := Figure{Name: "tradeoff", Title: "Interruption vs overlap", XLabel: "mean overlap (h)",
		YLabel: "mean interruption (h)",
		Caption: "Each policy is a point; a sweep (NAME@θ=V, NAME@margin=V) is a curve, its parameter ascending; " +
			"the oracle (zero interruption, least overlap) and oracle-cost (least interruption + λ·overlap, λ = " +
			strconv.FormatFloat(m.Lambda, 'g', -1, 64) + ") are marked" + perChain(sizes) + "."}
	panel = chainPanels(&trade, sizes)
	for i, n := range sizes {
		trade.Series = append(trade.Series, tradeoffSeries(m, order, strconv.Itoa(n), panel[i])...)
	}
	figs = append(figs, trade)

	var notes []string
	if len(preds) > 0 {
		figs = append(figs, predictionFigure(preds))
	} else {
		notes = append(notes, "Predicted vs actual r is not drawn: windows.csv carries no model predictions; "+
			"give mirage predict outputs with mirage report --predictions P.parquet (repeatable).")
	}
	if haveTrace && len(waits) > 0 {
		w := cdf("jobs", waits)
		figs = append(figs, Figure{Name: "cdf-wait", Title: "Queue wait of the trace's jobs", XLabel: "wait (h)",
			YLabel: "share of jobs", Caption: "Empirical CDF of Start − Submit over the jobs that started.", Series: []Series{w}})
	} else {
		notes = append(notes, "The trace's wait-time CDF is not drawn: no trace was given (mirage report --trace T.parquet).")
	}
	return figs, notes
}

// perChain is the captions' note on chain sizes.
func perChain(sizes []int) string {
	if len(sizes) < 2 {
		return ""
	}
	return "; one panel per chain size"
}

// tradeoffSeries returns the trade-off's series for chain size k (decimal)
// in panel: the single policies as points, each sweep as a line, then the
// oracles.
func tradeoffSeries(m evaluate.Metrics, order []string, k string, panel int) []Series {
	type variant struct {
		v float64
		p string
	}
	sweeps := map[string][]variant{}
	keys := map[string]string{}
	var bases []string
	pts := Series{Label: "policies", Kind: "points", Panel: panel}
	var oracles []Series
	for _, p := range order {
		s, ok := m.Policies[p].ByChain[k]
		if !ok {
			continue
		}
		if base, key, v, ok := baseName(p); ok {
			if _, seen := sweeps[base]; !seen {
				bases = append(bases, base)
				keys[base] = key
			}
			sweeps[base] = append(sweeps[base], variant{v, p})
			continue
		}
		if p == evaluate.OracleName || p == evaluate.OracleCostName {
			oracles = append(oracles, Series{Label: p, Kind: "points", X: []float64{s.MeanOverlapH},
				Y: []float64{s.MeanInterruptionH}, Names: []string{p}, Panel: panel})
			continue
		}
		pts.X, pts.Y, pts.Names = append(pts.X, s.MeanOverlapH), append(pts.Y, s.MeanInterruptionH), append(pts.Names, p)
	}
	var out []Series
	if len(pts.X) > 0 {
		out = append(out, pts)
	}
	for _, base := range bases {
		sw := sweeps[base]
		slices.SortStableFunc(sw, func(a, b variant) int { return cmp.Compare(a.v, b.v) })
		s := Series{Label: base, Kind: "line", Panel: panel}
		for _, t := range sw {
			sm := m.Policies[t.p].ByChain[k]
			s.X, s.Y = append(s.X, sm.MeanOverlapH), append(s.Y, sm.MeanInterruptionH)
			s.Names = append(s.Names, keys[base]+"="+strconv.FormatFloat(t.v, 'g', -1, 64))
		}
		out = append(out, s)
	}
	return append(out, oracles...)
}

// cdf returns the empirical CDF of x as a step series: the sorted
// distinct values and the share of values at or below each.
func cdf(label string, x []float64) Series {
	s := slices.Clone(x)
	slices.Sort(s)
	out := Series{Label: label, Kind: "step"}
	n := float64(len(s))
	for i, v := range s {
		if i+1 < len(s) && s[i+1] == v {
			continue
		}
		out.X = append(out.X, round(v))
		out.Y = append(out.Y, round(float64(i+1)/n))
	}
	return out
}

// round keeps 6 decimals so goldens do not depend on the last bits
// (values too large to scale are kept as they are).
func round(v float64) float64 {
	if math.Abs(v) >= 1e15 {
		return v
	}
	return math.Round(v*1e6) / 1e6
}
