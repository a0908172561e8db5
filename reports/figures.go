package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mirage-hpc/mirage/evaluate"
)

// Figure file stems of the evaluation's figures.
const (
	FrontierFigure = "frontier"
	RCDFFigure     = "cdf-r-by-load"
	ZeroFigure     = "zero-interruption-by-load"
	WaitFigure     = "cdf-wait"
	StripFigure    = "windows"
)

// figureInput is what the evaluation's figures are drawn from.
type figureInput struct {
	chains  []chainWindows
	all     map[int][]Stats // per chain size, every policy over all windows
	recs    []Recommendation
	grounds groundsInput
	labels  *Labels
	order   []string // policies, in the evaluation's order
	budgetH float64
	lambda  float64
	boot    boot
	// runH is the predecessor's mean run time per chain size (hours).
	runH map[int]float64
}

// chainPanel returns the panel title of chain size n when there are
// several sizes, else "".
func chainTitle(in *figureInput, n int) string {
	if len(in.chains) < 2 {
		return ""
	}
	return fmt.Sprintf("chains of %d node(s)", n)
}

// frontierFigure draws mean interruption against mean overlap per
// policy, sweeps as curves, the recommendation highlighted and the budget
// as a vertical line, one panel per chain size. The x axis ends at
// max(4 × budget, 1 h) or the largest overlap if less; points beyond are
// drawn at the edge with their value.
func frontierFigure(in *figureInput) Figure {
	f := Figure{Name: FrontierFigure, Title: "Trade-off: interruption vs overlap"}
	for ci, cw := range in.chains {
		stats := in.all[cw.Nodes]
		maxX := 0.0
		for _, s := range stats {
			maxX = max(maxX, s.OverlapH.Point)
		}
		xcap := max(4*in.budgetH, 1)
		pn := Panel{Title: chainTitle(in, cw.Nodes), XLabel: "mean overlap per window (h)", YLabel: "mean interruption per window (h)"}
		if maxX > xcap {
			pn.XMax = ptr(xcap)
		}
		f.Panels = append(f.Panels, pn)
		type variant struct {
			v float64
			s Stats
		}
		sweeps := map[string][]variant{}
		var fams []string
		for _, s := range stats {
			n := evaluate.ParseName(s.Policy)
			if n.Swept || slices.ContainsFunc(stats, func(o Stats) bool {
				m := evaluate.ParseName(o.Policy)
				return m.Swept && m.Family == n.Family
			}) {
				if _, ok := sweeps[n.Family]; !ok {
					fams = append(fams, n.Family)
				}
				v := math.NaN() // the operating point sits among the sweep by its overlap
				if n.Swept {
					v = n.Value
				}
				sweeps[n.Family] = append(sweeps[n.Family], variant{v, s})
				continue
			}
			f.Series = append(f.Series, Series{Label: in.labels.Label(s.Policy), Kind: "points", Panel: ci,
				Style: in.labels.Style(s.Policy), X: []float64{round(s.OverlapH.Point)}, Y: []float64{round(s.InterruptionH.Point)}})
		}
		for _, fam := range fams {
			sw := sweeps[fam]
			slices.SortStableFunc(sw, func(a, b variant) int {
				return cmp.Compare(a.s.OverlapH.Point, b.s.OverlapH.Point)
			})
			s := Series{Label: in.labels.Label(fam) + " (sweep)", Kind: "line", Panel: ci, Style: in.labels.Style(fam)}
			for k, v := range sw {
				s.X, s.Y = append(s.X, round(v.s.OverlapH.Point)), append(s.Y, round(v.s.InterruptionH.Point))
				name := ""
				if k == 0 || k == len(sw)-1 {
					if n := evaluate.ParseName(v.s.Policy); n.Swept {
						name = n.Key + "=" + strconv.FormatFloat(n.Value, 'g', -1, 64)
					}
				}
				s.Names = append(s.Names, name)
			}
			f.Series = append(f.Series, s)
		}
		for _, r := range in.recs {
			if r.Nodes == cw.Nodes {
				f.Series = append(f.Series, Series{Label: r.role(), Kind: "points", Panel: ci, Highlight: true,
					Style: in.labels.Style(r.Stats.Policy), X: []float64{round(r.Stats.OverlapH.Point)}, Y: []float64{round(r.Stats.InterruptionH.Point)}})
			}
		}
		f.Series = append(f.Series, Series{Label: fmt.Sprintf("overlap budget (%s h)", fmtG(in.budgetH)), Kind: "vline",
			Panel: ci, Style: 5, X: []float64{in.budgetH}, Y: []float64{0}})
	}
	f.Caption = "Each policy's mean interruption against its mean overlap per validation window; a parameter sweep " +
		"(θ for models of r, τ for classifiers, margin for estimates) is a curve through its variants, ends labelled; " +
		"the ringed point is the recommendation, or the best candidate when the report recommends nothing (largest interruption reduction with mean overlap within the budget, " +
		"the dashed vertical line). Points beyond the right edge are drawn at the edge with their overlap written beside them. " +
		"Lower left is better; the oracle is the hindsight bound."
	return f
}

// rRange returns the x range of an r CDF panel: the 2nd and 98th
// percentiles of the values, rounded out to 6 h and kept within ±72 h,
// and always including 0.
func rRange(vals []float64) (lo, hi float64) {
	if len(vals) == 0 {
		return -6, 6
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	q := func(p float64) float64 { return s[int(p*float64(len(s)-1))] }
	lo = max(math.Floor(min(q(0.02), 0)/6)*6, -72)
	hi = min(math.Ceil(max(q(0.98), 0)/6)*6, 72)
	if lo == 0 {
		lo = -6
	}
	if hi == 0 {
		hi = 6
	}
	return lo, hi
}

// cdfPolicies returns the policies an r CDF panel of chain size n shows:
// reactive, the built-in estimate baseline, the oracle, the
// recommendation and the best model at its operating point when another.
func cdfPolicies(in *figureInput, cw *chainWindows) []string {
	var out []string
	add := func(p string) {
		if _, ok := cw.RSec[p]; ok && p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add("reactive")
	add("slurm-estimate")
	add(evaluate.OracleName)
	for _, r := range in.recs {
		if r.Nodes == cw.Nodes {
			add(r.Stats.Policy)
		}
	}
	// the model (at its operating point, not a sweep variant) with the
	// greatest reduction within the budget
	// (else, when no model meets the budget, the model of least cost)
	var best, cheapest *Stats
	for _, s := range in.all[cw.Nodes] {
		n := evaluate.ParseName(s.Policy)
		if !n.IsModel() || n.Swept {
			continue
		}
		if cheapest == nil || s.CostH < cheapest.CostH {
			cheapest = &s
		}
		if s.OverlapH.Point <= in.budgetH && (best == nil || s.Reduction.Point > best.Reduction.Point) {
			best = &s
		}
	}
	if best == nil {
		best = cheapest
	}
	if best != nil {
		add(best.Policy)
	}
	return out
}

// rCDFFigure draws the empirical CDF of signed r = Q.start − P.end
// (hours; interruption right of 0, overlap left) per load class (a
// column each) and chain size (a row each), as the Mirage paper draws
// them, for a few policies.
func rCDFFigure(in *figureInput) Figure {
	var classes []string // the load classes with windows
	for _, lc := range evaluate.LoadClasses {
		for _, cw := range in.chains {
			if len(cw.subset(lc)) > 0 && !slices.Contains(classes, lc) {
				classes = append(classes, lc)
			}
		}
	}
	f := Figure{Name: RCDFFigure, Title: "Signed r per load class", Cols: max(len(classes), 1)}
	clipped := 0
	total := 0
	// one x range for every panel, from all the values drawn
	var all []float64
	for _, cw := range in.chains {
		for _, p := range cdfPolicies(in, &cw) {
			all = append(all, hours(cw.RSec[p], cw.subset(""), signedH)...)
		}
	}
	lo, hi := rRange(all)
	for _, cw := range in.chains {
		pols := cdfPolicies(in, &cw)
		for _, lc := range classes {
			idx := cw.subset(lc)
			panel := len(f.Panels)
			title := fmt.Sprintf("%s load · %d windows", lc, len(idx))
			if len(in.chains) > 1 {
				title = fmt.Sprintf("%d node(s) · %s · %d windows", cw.Nodes, lc, len(idx))
			}
			f.Panels = append(f.Panels, Panel{Title: title, XLabel: "r = Q.start − P.end (h)", YLabel: "share of windows",
				XMin: ptr(lo), XMax: ptr(hi), YMin: ptr(0), YMax: ptr(1), XSymHours: true})
			if len(idx) == 0 {
				continue
			}
			for _, p := range pols {
				v := hours(cw.RSec[p], idx, signedH)
				for _, x := range v {
					total++
					if x < lo || x > hi {
						clipped++
					}
				}
				s := cdf(in.labels.Label(p), v)
				s.Panel, s.Style = panel, in.labels.Style(p)
				f.Series = append(f.Series, s)
			}
			f.Series = append(f.Series, Series{Kind: "vline", Panel: panel, Style: 0, X: []float64{0}, Y: []float64{0}})
		}
	}
	f.Caption = "Empirical CDF over the validation windows of r = Q.start − P.end in hours: right of 0 Q starts after P " +
		"ends (interruption), left of 0 they overlap. Windows are split by load class, from the reactive policy's " +
		"interruption: light ≤ 2 h, medium 2–12 h, heavy > 12 h (a class without windows has no column). A curve that reaches 1 at 0 never interrupts. " +
		fmt.Sprintf("The panels share one x axis, on an asinh scale (linear within about ±1 h, logarithmic beyond), cut at the 2nd and 98th percentiles of all the values drawn (rounded to 6 h, at most ±72 h); %d of %d values lie beyond and are drawn at the edge.", clipped, total)
	return f
}

// figurePolicies are the policies the zero-interruption figure shows:
// every policy that is not a sweep variant, then the recommendations
// that are.
func figurePolicies(in *figureInput) []string {
	var out []string
	for _, p := range in.order {
		if !evaluate.ParseName(p).Swept {
			out = append(out, p)
		}
	}
	for _, r := range in.recs {
		if !slices.Contains(out, r.Stats.Policy) {
			out = append(out, r.Stats.Policy)
		}
	}
	return out
}

// loadStyles are the load classes' styles (orange, blue, vermillion).
var loadStyles = map[string]int{evaluate.LoadLight: 1, evaluate.LoadMedium: 4, evaluate.LoadHeavy: 5}

// zeroFigure draws each policy's share of windows with zero interruption
// per load class with its 95 % bootstrap interval, one panel per chain
// size.
func zeroFigure(in *figureInput) Figure {
	f := Figure{Name: ZeroFigure, Title: "Windows with zero interruption, by load class"}
	pols := figurePolicies(in)
	for ci, cw := range in.chains {
		var names []string
		var shown []string
		for _, p := range pols {
			if _, ok := cw.RSec[p]; ok {
				shown = append(shown, p)
				names = append(names, in.labels.Label(p))
			}
		}
		f.Panels = append(f.Panels, Panel{Title: chainTitle(in, cw.Nodes), XLabel: "", YLabel: "share of windows with zero interruption",
			Nominal: names, YMin: ptr(0), YMax: ptr(1.02)})
		for li, lc := range evaluate.LoadClasses {
			idx := cw.subset(lc)
			if len(idx) == 0 {
				continue
			}
			s := Series{Label: fmt.Sprintf("%s load (n = %d windows)", lc, len(idx)), Kind: "whiskers", Panel: ci, Style: loadStyles[lc]}
			if len(in.chains) > 1 {
				s.Label = fmt.Sprintf("%s load", lc)
			}
			for k, p := range shown {
				st := statsFor(&cw, p, "", lc, idx, in.lambda, in.boot)
				s.X = append(s.X, float64(k)+0.22*float64(li-1))
				s.Y = append(s.Y, round(st.ZeroShare.Point))
				s.Lo, s.Hi = append(s.Lo, round(st.ZeroShare.Lo)), append(s.Hi, round(st.ZeroShare.Hi))
			}
			f.Series = append(f.Series, s)
		}
	}
	f.Caption = fmt.Sprintf("Share of validation windows in which Q starts no later than P ends, per policy (at its operating "+
		"point; a recommended sweep variant is added) and load class, with %d %% bootstrap intervals over the windows "+
		"(%d resamples, seed %d). The window count of each class is in the legend (per chain size in the tables).",
		int(IntervalLevel*100), in.boot.reps, in.boot.seed)
	return f
}

// waitFigure draws the trace's wait-time CDF on a log time axis.
func waitFigure(waitsH []float64) Figure {
	s := cdf("", waitsH)
	zero := 0
	for _, w := range waitsH {
		if w < minLogHours {
			zero++
		}
	}
	s.Style = 3
	return Figure{Name: WaitFigure, Title: "Queue wait of the trace's jobs",
		Panels: []Panel{{XLabel: "wait = Start − Submit (log scale)", YLabel: "share of jobs", XLogHours: true, YMin: ptr(0), YMax: ptr(1)}},
		Series: []Series{s},
		Caption: fmt.Sprintf("Empirical CDF of Start − Submit over the %d jobs of the trace that started; %d (%.1f %%) waited "+
			"less than a minute and are drawn at 1 min.", len(waitsH), zero, 100*float64(zero)/float64(max(len(waitsH), 1)))}
}

// stripFigure draws, per validation window, the reactive policy's
// interruption and the recommended policy's and the oracle's r, one
// panel per chain size.
func stripFigure(in *figureInput) Figure {
	f := Figure{Name: StripFigure, Title: "Per-window outcomes"}
	for ci, cw := range in.chains {
		if len(cw.Start) == 0 {
			continue
		}
		t0 := cw.Start[0]
		f.Panels = append(f.Panels, Panel{Title: chainTitle(in, cw.Nodes), XLabel: "window start (days after the first window's, " + utcTime(t0) + ")",
			YLabel: "r (h): > 0 interruption, < 0 overlap"})
		days := make([]float64, len(cw.Start))
		for i, s := range cw.Start {
			days[i] = round(float64(s-t0) / 86400)
		}
		react := Series{Label: "reactive (interruption)", Kind: "points", Panel: ci, Style: in.labels.Style("reactive"), X: days}
		for _, r := range cw.ReactiveRSec {
			react.Y = append(react.Y, round(evaluate.InterruptionH(r)))
		}
		f.Series = append(f.Series, react)
		for _, r := range in.recs {
			if r.Nodes != cw.Nodes {
				continue
			}
			s := Series{Label: in.labels.Label(r.Stats.Policy) + " (" + r.role() + ")", Kind: "points", Panel: ci,
				Style: in.labels.Style(r.Stats.Policy), X: days}
			for _, v := range cw.RSec[r.Stats.Policy] {
				s.Y = append(s.Y, round(signedH(v)))
			}
			f.Series = append(f.Series, s)
		}
		if o, ok := cw.RSec[evaluate.OracleName]; ok {
			s := Series{Label: "oracle", Kind: "points", Panel: ci, Style: in.labels.Style(evaluate.OracleName), X: days}
			for _, v := range o {
				s.Y = append(s.Y, round(signedH(v)))
			}
			f.Series = append(f.Series, s)
		}
		f.Series = append(f.Series, Series{Kind: "curve", Panel: ci, Style: 0, X: []float64{days[0], days[len(days)-1]}, Y: []float64{0, 0}})
	}
	f.Caption = "One column of points per validation window, in time order: the reactive policy's interruption (how " +
		"hard the window is), the recommended policy's (or best candidate's) r and the oracle's r. Points above 0 are interruptions, below 0 " +
		"overlap; where the recommended policy sits above 0 it failed to submit Q early enough."
	return f
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

// fmtG formats v with up to 4 significant digits.
func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
