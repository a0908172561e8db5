package reports

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/train/dqn"
)

// DQNWindow is the number of episodes the DQN training-curve figure
// averages over (a trailing moving mean).
const DQNWindow = 25

// DQNFigurePrefix is the file stem of the DQN training-curve figures:
// "dqn-curve-" and the model directory's base name.
const DQNFigurePrefix = "dqn-curve"

// ErrNoDQNCurve reports a DQN model directory whose curve.csv is missing
// or has no episodes.
var ErrNoDQNCurve = errors.New("no DQN training curve")

// DQNModel is one DQN model whose training curve the report draws.
type DQNModel struct {
	// Policy is the evaluation's policy family (dqn:DIR), or "dqn:" and
	// the directory for one named only with Options.DQN.
	Policy string `json:"policy"`
	// Dir is the directory read.
	Dir       string `json:"dir"`
	Episodes  int    `json:"episodes"`
	Decisions int    `json:"decisions"`
	// BestValidReturn is the manifest's training.best_valid_return
	// (hours: the return is −(interruption + λ·overlap)).
	BestValidReturn *float64 `json:"best_valid_return,omitempty"`
	// ValidReactive and ValidOracle are the reactive policy's and the
	// hindsight oracle's returns on the same held-out windows (hours).
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
	Figure string     `json:"figure"`
	Curve  *dqn.Curve `json:"-"`
}

// LoadDQN reads the training curve (dqn.ReadCurveFile) and, when there,
// the manifest (dqn.ReadManifest) of the DQN model in dir. A missing
// curve.csv, or one without episodes, is an error wrapping ErrNoDQNCurve;
// an unreadable manifest is logged on log and otherwise ignored.
func LoadDQN(policy, dir string, log *slog.Logger) (DQNModel, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := DQNModel{Policy: policy, Dir: dir}
	path := filepath.Join(dir, dqn.CurveFile)
	c, err := dqn.ReadCurveFile(path)
	if errors.Is(err, os.ErrNotExist) {
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
		m.Decisions += max(p.Decisions, 0)
	}
	man, err := dqn.ReadManifest(dir)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		log.Warn("DQN model manifest unreadable; the caption uses the curve alone", "dir", dir, "err", err)
		return m, nil
	}
	if man.Training.Decisions > 0 {
		m.Decisions = man.Training.Decisions
	}
	m.BestValidReturn, m.EarlyStopped = man.Training.BestValidReturn, man.Training.EarlyStopped
	m.ValidReactive, m.ValidOracle, m.Target = man.Training.ValidReactive, man.Training.ValidOracle, man.Config.Target
	m.Protocol, m.GradSteps, m.WeightsSHA256 = man.Protocol, man.Training.GradSteps, man.Files[dqn.WeightsFile].SHA256
	return m, nil
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
	f := Figure{Name: name, Title: "DQN training curve: " + m.Policy,
		Panels: []Panel{{XLabel: "episode", YLabel: "return (h): −(interruption + λ·overlap)"}}}
	var pts []dqn.CurvePoint
	if m.Curve != nil {
		pts = m.Curve.Points
	}
	ep := make([]float64, len(pts))
	col := func(v func(dqn.CurvePoint) float64) []float64 {
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
		s := Series{Label: label, Kind: "curve", Panel: panel, Style: 4}
		s.X, s.Y = movingMean(ep, y, DQNWindow)
		return s
	}
	// One legend entry per kind of line: the raw values are "per
	// episode" and their moving means "mean of last N" in every panel.
	perEp, mean := "per episode", fmt.Sprintf("mean of last %d episodes", DQNWindow)
	ret := col(func(p dqn.CurvePoint) float64 { return p.Return })
	f.Series = append(f.Series, raw(perEp, 0, ret), smooth(mean, 0, ret))
	parts := []string{fmt.Sprintf("Training return per episode (grey) and its mean over the last %d episodes", DQNWindow)}
	if v := raw("validation return", 1, col(func(p dqn.CurvePoint) float64 { return p.ValidReturn })); len(v.X) > 0 {
		// its own panel: a mean greedy return per held-out window is not
		// on the scale of an episode's return
		v.Kind, v.Faint, v.Style = "line", false, 5
		f.Panels = append(f.Panels, Panel{XLabel: "episode", YLabel: "validation return (h)"})
		f.Series = append(f.Series, v)
		if m.ValidReactive != nil && plottable(*m.ValidReactive) && len(v.X) > 0 {
			f.Series = append(f.Series, Series{Label: "reactive (held-out)", Kind: "curve", Panel: 1, Style: 1,
				X: []float64{v.X[0], v.X[len(v.X)-1]}, Y: []float64{round(*m.ValidReactive), round(*m.ValidReactive)}})
		}
		if m.ValidOracle != nil && plottable(*m.ValidOracle) && len(v.X) > 0 {
			f.Series = append(f.Series, Series{Label: "oracle (held-out)", Kind: "curve", Panel: 1, Style: 13,
				X: []float64{v.X[0], v.X[len(v.X)-1]}, Y: []float64{round(*m.ValidOracle), round(*m.ValidOracle)}})
		}
		parts = append(parts, "below, the validation return (mean greedy return on the held-out windows) where validated, beside the reactive policy's and the oracle's on the same windows when known")
	}
	what := strings.Join(parts, "; ")
	loss := col(func(p dqn.CurvePoint) float64 { return p.Loss })
	if l := raw(perEp, len(f.Panels), loss); len(l.X) > 0 {
		f.Series = append(f.Series, l, smooth(mean, len(f.Panels), loss))
		f.Panels = append(f.Panels, Panel{XLabel: "episode", YLabel: "loss"})
		what += "; then the loss (per episode and its moving mean)"
	}
	eps := col(func(p dqn.CurvePoint) float64 { return p.Epsilon })
	if e := raw("ε", len(f.Panels), eps); len(e.X) > 0 {
		e.Kind, e.Faint, e.Style = "curve", false, 3
		f.Panels = append(f.Panels, Panel{XLabel: "episode", YLabel: "ε"})
		f.Series = append(f.Series, e)
		what += "; then ε, the exploration rate"
	}
	if len(ep) > 1 { // one episode axis for every panel
		for i := range f.Panels {
			f.Panels[i].XMin, f.Panels[i].XMax = ptr(ep[0]), ptr(ep[len(ep)-1])
		}
	}
	sum := plural(m.Episodes, "episode")
	// The directory's name, never its path: the page does not depend on
	// where the model is, or how its path is spelled.
	if base := filepath.Base(m.Dir); filepath.Base(evaluate.ParseName(m.Policy).Dir) != base {
		sum = "From " + base + ": " + sum
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
