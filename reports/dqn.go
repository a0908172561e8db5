package reports

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/train/dqn"
)

// DQNWindow is the number of episodes the DQN training-curve figure
// averages over (a trailing moving mean).
const DQNWindow = 25

// DQNFigurePrefix is the file stem of the DQN training-curve figures:
// "dqn-curve-" and the model directory's base name.
const DQNFigurePrefix = "dqn-curve"

// ErrNoDQNCurve reports a DQN model directory, named with Options.DQN,
// that is missing or holds no curve.csv.
var ErrNoDQNCurve = errors.New("no DQN training curve")

// Curve columns: episode and return are required; the others are used
// when present; any other column is ignored.
const (
	CurveEpisode     = "episode"
	CurveReturn      = "return"
	CurveDecisions   = "decisions"
	CurveLoss        = "loss"
	CurveEpsilon     = "epsilon"
	CurveValidReturn = "valid_return"
)

// CurvePoint is one episode of a DQN training curve. A value whose column
// is absent, empty or written "NaN" is NaN.
type CurvePoint struct {
	Episode int
	Return  float64 // finite
	// Decisions is the episode's number of decisions.
	Decisions float64
	// Loss is the mean loss of the episode's gradient steps.
	Loss float64
	// Epsilon is ε at the episode's last decision.
	Epsilon float64
	// ValidReturn is the mean greedy return on the held-out windows.
	ValidReturn float64
}

// Curve is a DQN model's curve.csv.
type Curve struct {
	Path    string   // the file read (names it in errors)
	Columns []string // the header, as read (trimmed)
	Points  []CurvePoint
}

// Has reports whether the header has column name.
func (c *Curve) Has(name string) bool {
	for _, col := range c.Columns {
		if col == name {
			return true
		}
	}
	return false
}

// CurveError is a malformed curve.csv: the file, the line (1 is the
// header) and, when one value is at fault, its column.
type CurveError struct {
	Path  string
	Line  int
	Field string
	Err   error
}

func (e *CurveError) Error() string {
	s := fmt.Sprintf("%s:%d", e.Path, e.Line)
	if e.Field != "" {
		s += ": field " + e.Field
	}
	return s + ": " + e.Err.Error()
}

func (e *CurveError) Unwrap() error { return e.Err }

// ReadCurveFile reads a curve.csv.
func ReadCurveFile(path string) (*Curve, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCurve(f, path)
}

// ReadCurve reads a DQN training curve (the curve.csv of mirage train
// --model dqn): a header row naming the columns, then one row per episode.
// Columns are found by name; episode (an integer) and return (a finite
// number) are required; decisions, loss, epsilon and valid_return are read
// when present (empty or "NaN": no value); other columns are ignored.
// path names the input in errors, which are *CurveError.
func ReadCurve(r io.Reader, path string) (*Curve, error) {
	c := &Curve{Path: path}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	fail := func(line int, field string, err error) (*Curve, error) {
		return nil, &CurveError{Path: path, Line: line, Field: field, Err: err}
	}
	csvFail := func(err error) (*Curve, error) {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return fail(pe.Line, "", fmt.Errorf("column %d: %w", pe.Column, pe.Err))
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return fail(1, "", errors.New("empty file, want a header row naming at least episode and return"))
	}
	if err != nil {
		return csvFail(err)
	}
	idx := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF")
		}
		h = strings.TrimSpace(h)
		c.Columns = append(c.Columns, h)
		if h == "" {
			continue
		}
		if _, dup := idx[h]; dup {
			return fail(1, h, errors.New("column named twice in the header"))
		}
		idx[h] = i
	}
	for _, req := range []string{CurveEpisode, CurveReturn} {
		if _, ok := idx[req]; !ok {
			return fail(1, req, fmt.Errorf("no such column in the header %q (want at least episode and return)", strings.Join(c.Columns, ",")))
		}
	}
	col := func(name string) int {
		if i, ok := idx[name]; ok {
			return i
		}
		return -1
	}
	iEp, iRet := idx[CurveEpisode], idx[CurveReturn]
	opt := []struct {
		name string
		i    int
		dst  func(*CurvePoint) *float64
	}{
		{CurveDecisions, col(CurveDecisions), func(p *CurvePoint) *float64 { return &p.Decisions }},
		{CurveLoss, col(CurveLoss), func(p *CurvePoint) *float64 { return &p.Loss }},
		{CurveEpsilon, col(CurveEpsilon), func(p *CurvePoint) *float64 { return &p.Epsilon }},
		{CurveValidReturn, col(CurveValidReturn), func(p *CurvePoint) *float64 { return &p.ValidReturn }},
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil {
			return csvFail(err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return fail(line, "", fmt.Errorf("%d fields, the header has %d", len(rec), len(header)))
		}
		p := CurvePoint{Decisions: math.NaN(), Loss: math.NaN(), Epsilon: math.NaN(), ValidReturn: math.NaN()}
		v := strings.TrimSpace(rec[iEp])
		if p.Episode, err = strconv.Atoi(v); err != nil {
			return fail(line, CurveEpisode, fmt.Errorf("%q is not an integer", v))
		}
		v = strings.TrimSpace(rec[iRet])
		if p.Return, err = strconv.ParseFloat(v, 64); err != nil || math.IsNaN(p.Return) || math.IsInf(p.Return, 0) {
			return fail(line, CurveReturn, fmt.Errorf("%q is not a finite number", v))
		}
		for _, o := range opt {
			if o.i < 0 {
				continue
			}
			v := strings.TrimSpace(rec[o.i])
			if v == "" {
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fail(line, o.name, fmt.Errorf("%q is not a number (NaN or empty: no value)", v))
			}
			*o.dst(&p) = f
		}
		c.Points = append(c.Points, p)
	}
}

// DQNModel is one DQN model whose training curve the report draws.
type DQNModel struct {
	// Policy is the evaluation's policy name (dqn:DIR), or "dqn:" and the
	// directory for one named only with Options.DQN.
	Policy string `json:"policy"`
	// Dir is the directory read.
	Dir       string `json:"dir"`
	Episodes  int    `json:"episodes"`
	Decisions int    `json:"decisions"`
	// BestValidReturn is the manifest's training.best_valid_return.
	BestValidReturn *float64 `json:"best_valid_return,omitempty"`
	// ValidReactive and ValidOracle are the reactive policy's and the
	// hindsight oracle's returns on the same held-out windows.
	ValidReactive *float64 `json:"valid_reactive_return,omitempty"`
	ValidOracle   *float64 `json:"valid_oracle_return,omitempty"`
	// Target is the wait transitions' target (hyper_parameters.target).
	Target string `json:"target,omitempty"`
	// Protocol, GradSteps and WeightsSHA256 are the manifest's protocol,
	// training.grad_steps and sha256 of model.safetensors.
	Protocol      string `json:"protocol,omitempty"`
	GradSteps     int    `json:"grad_steps,omitempty"`
	WeightsSHA256 string `json:"weights_sha256,omitempty"`
	EarlyStopped  bool   `json:"early_stopped,omitempty"`
	// Figure is the curve figure's file stem.
	Figure string `json:"figure"`
	Curve  *Curve `json:"-"`
}

// LoadDQN reads the training curve (and, when there, the manifest) of the
// DQN model in dir. A missing dir or curve.csv, or one without episodes,
// is an error wrapping ErrNoDQNCurve; an unreadable manifest.json is logged on log and
// otherwise ignored.
func LoadDQN(policy, dir string, log *slog.Logger) (DQNModel, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := DQNModel{Policy: policy, Dir: dir}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, fmt.Errorf("%w: DQN model directory %s does not exist", ErrNoDQNCurve, dir)
	case err != nil:
		return m, fmt.Errorf("DQN model directory: %w", err)
	case !fi.IsDir():
		return m, fmt.Errorf("%w: %s is not a directory (want a DQN model directory)", ErrNoDQNCurve, dir)
	}
	path := filepath.Join(dir, dqn.CurveFile)
	c, err := ReadCurveFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, fmt.Errorf("%w: %s does not exist (mirage train --model dqn writes it into the model directory)", ErrNoDQNCurve, path)
	}
	if err != nil {
		return m, err
	}
	if len(c.Points) == 0 {
		return m, fmt.Errorf("%w: %s has no episodes", ErrNoDQNCurve, path)
	}
	m.Curve, m.Episodes = c, len(c.Points)
	for _, p := range c.Points {
		if !math.IsNaN(p.Decisions) && !math.IsInf(p.Decisions, 0) && p.Decisions > 0 {
			m.Decisions += int(p.Decisions)
		}
	}
	mpath := filepath.Join(dir, dqn.ManifestFile)
	b, err := os.ReadFile(mpath)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	var man dqn.Manifest
	if err == nil {
		err = json.Unmarshal(b, &man)
	}
	if err != nil {
		log.Warn("DQN model manifest unreadable; the caption uses the curve alone", "path", mpath, "err", err)
		return m, nil
	}
	if man.Training.Decisions > 0 {
		m.Decisions = man.Training.Decisions
	}
	m.BestValidReturn, m.EarlyStopped = man.Training.BestValidReturn, man.Training.EarlyStopped
	m.ValidReactive, m.ValidOracle, m.Target = man.Training.ValidReactive, man.Training.ValidOracle, man.Config.Target
	m.Protocol, m.GradSteps, m.WeightsSHA256 = man.Protocol, man.Training.GradSteps, man.Files[dqn.WeightsFile]
	return m, nil
}

// findDQN returns the DQN models to draw: the evaluation's dqn:DIR
// policies, in order, then the directories of explicit not matching one.
// An explicit directory that cannot be read is an error; a policy's is
// logged and skipped.
func findDQN(policies, explicit []string, log *slog.Logger) ([]DQNModel, error) {
	type cand struct {
		policy, dir string
		explicit    bool
	}
	var cands []cand
	seen := map[string]bool{}
	used := make([]bool, len(explicit))
	for _, p := range policies {
		base, _, _, _ := baseName(p)
		kind, dir, ok := strings.Cut(base, ":")
		if !ok || kind != "dqn" || dir == "" || seen[base] {
			continue
		}
		seen[base] = true
		c := cand{policy: base, dir: dir}
		for i, e := range explicit {
			if sameModelDir(e, dir) {
				c.dir, c.explicit, used[i] = e, true, true
				break
			}
		}
		cands = append(cands, c)
	}
	for i, e := range explicit {
		if !used[i] {
			cands = append(cands, cand{policy: "dqn:" + e, dir: e, explicit: true})
		}
	}
	var out []DQNModel
	dirs := map[string]bool{}
	stems := map[string]bool{}
	for _, c := range cands {
		if dirs[filepath.Clean(c.dir)] {
			continue
		}
		dirs[filepath.Clean(c.dir)] = true
		m, err := LoadDQN(c.policy, c.dir, log)
		if err != nil {
			if c.explicit {
				return nil, err
			}
			log.Warn("DQN training curve not drawn (name the model directory with mirage report --dqn DIR)",
				"policy", c.policy, "err", err)
			continue
		}
		m.Figure = uniqueStem(DQNFigurePrefix+"-"+slug(filepath.Base(filepath.Clean(c.dir))), stems)
		out = append(out, m)
	}
	return out, nil
}

// sameModelDir reports whether the explicitly named directory e is the
// policy's directory p: the same path or file, or a path ending in p
// (leading ".." dropped), p being relative to where evaluate ran.
func sameModelDir(e, p string) bool {
	e, p = filepath.Clean(e), filepath.Clean(p)
	if e == p {
		return true
	}
	if fe, err := os.Stat(e); err == nil {
		if fp, err := os.Stat(p); err == nil && os.SameFile(fe, fp) {
			return true
		}
	}
	s := strings.TrimLeft(filepath.ToSlash(p), "/")
	for strings.HasPrefix(s, "../") {
		s = s[3:]
	}
	return s != "" && s != ".." && strings.HasSuffix(filepath.ToSlash(e), "/"+s)
}

// slug keeps letters, digits, '.', '_' and '-' of s; others become '-'.
func slug(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) == 0 || string(b) == "." || string(b) == ".." {
		return "model"
	}
	return string(b)
}

// uniqueStem returns stem, or stem-2, stem-3, … when taken, and marks it.
func uniqueStem(stem string, taken map[string]bool) string {
	s := stem
	for n := 2; taken[s]; n++ {
		s = fmt.Sprintf("%s-%d", stem, n)
	}
	taken[s] = true
	return s
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// maxPlotted bounds the values drawn: gonum/plot does not return from an
// axis whose span overflows to +Inf (e.g. from -1e308 to 1e308).
const maxPlotted = 1e300

// plottable reports whether v is drawn: finite and within ±maxPlotted.
func plottable(v float64) bool { return finite(v) && math.Abs(v) <= maxPlotted }

// movingMean returns, at each i where y[i] is plottable, x[i] and the
// mean of the plottable values among y[i-w+1..i].
func movingMean(x, y []float64, w int) (mx, my []float64) {
	for i := range y {
		if !plottable(y[i]) {
			continue
		}
		n := 0
		for k := max(0, i-w+1); k <= i; k++ {
			if plottable(y[k]) {
				n++
			}
		}
		var mean float64
		for k := max(0, i-w+1); k <= i; k++ {
			if plottable(y[k]) {
				mean += y[k] / float64(n) // no overflow: |mean| ≤ max |y|
			}
		}
		mx, my = append(mx, x[i]), append(my, round(mean))
	}
	return mx, my
}

// DQNFigure draws m's training curve: episode return (raw, faint, and its
// moving mean over DQNWindow episodes) with the validation return where
// validated; loss in a second panel and ε in a third when the curve has
// them. Values that are not finite, or beyond ±1e300, are not drawn.
func DQNFigure(m *DQNModel) Figure {
	name := m.Figure
	if name == "" {
		name = DQNFigurePrefix
	}
	f := Figure{Name: name, Title: "DQN training curve: " + m.Policy, XLabel: "episode", YLabel: "return",
		Panels: []string{"return"}}
	var pts []CurvePoint
	if m.Curve != nil {
		pts = m.Curve.Points
	}
	ep := make([]float64, len(pts))
	col := func(v func(CurvePoint) float64) []float64 {
		out := make([]float64, len(pts))
		for i, p := range pts {
			out[i] = v(p)
		}
		return out
	}
	for i, p := range pts {
		ep[i] = float64(p.Episode)
	}
	raw := func(label string, panel int, y []float64) Series {
		s := Series{Label: label, Kind: "points", Panel: panel, Faint: true}
		for i := range y {
			if plottable(y[i]) {
				s.X, s.Y = append(s.X, ep[i]), append(s.Y, round(y[i]))
			}
		}
		return s
	}
	smooth := func(label string, panel int, y []float64) Series {
		s := Series{Label: label, Kind: "curve", Panel: panel}
		s.X, s.Y = movingMean(ep, y, DQNWindow)
		return s
	}
	mean := fmt.Sprintf("mean of last %d", DQNWindow)
	ret := col(func(p CurvePoint) float64 { return p.Return })
	f.Series = append(f.Series, raw("return per episode", 0, ret), smooth("return, "+mean, 0, ret))
	parts := []string{fmt.Sprintf("Return per episode (grey) and its mean over the last %d episodes", DQNWindow)}
	if v := raw("validation return", 0, col(func(p CurvePoint) float64 { return p.ValidReturn })); len(v.X) > 0 {
		v.Kind, v.Faint = "line", false
		f.Series = append(f.Series, v)
		parts = append(parts, "the validation return (mean greedy return on the held-out windows) where validated")
	}
	what := strings.Join(parts, ", ")
	loss := col(func(p CurvePoint) float64 { return p.Loss })
	if l := raw("loss per episode", 1, loss); len(l.X) > 0 {
		f.Panels = append(f.Panels, "loss")
		f.Series = append(f.Series, l, smooth("loss, "+mean, 1, loss))
		what += "; below, the loss (per episode and its moving mean)"
	}
	eps := col(func(p CurvePoint) float64 { return p.Epsilon })
	if e := raw("ε", len(f.Panels), eps); len(e.X) > 0 {
		e.Kind, e.Faint = "curve", false
		f.Panels = append(f.Panels, "ε")
		f.Series = append(f.Series, e)
		what += "; then ε, the exploration rate"
	}
	sum := plural(m.Episodes, "episode")
	if m.Policy != "dqn:"+m.Dir {
		sum = "From " + m.Dir + ": " + sum
	} else {
		sum = strings.ToUpper(sum[:1]) + sum[1:]
	}
	if m.Decisions > 0 {
		sum += ", " + plural(m.Decisions, "decision")
	}
	if m.Target != "" {
		sum += ", " + m.Target + " target"
	}
	if m.BestValidReturn != nil {
		sum += fmt.Sprintf(", best validation return %.4g", *m.BestValidReturn)
		if m.ValidReactive != nil && m.ValidOracle != nil {
			sum += fmt.Sprintf(" (reactive %.4g, oracle %.4g on the same held-out windows)", *m.ValidReactive, *m.ValidOracle)
		}
	}
	if m.EarlyStopped {
		sum += ", stopped early"
	}
	f.Caption = sum + ". " + what + "."
	return f
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
