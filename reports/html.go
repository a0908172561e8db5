package reports

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
)

// The page is XHTML-style (every element closed, no named entities) so
// that an XML parser reads it; it references no other file.
var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"h":   func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"pct": func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
	"gap": func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", *v)
	},
	"pv":  paramValue,
	"f4":  func(v float64) string { return fmt.Sprintf("%.4f", v) },
	"g":   func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) },
	"utc": func(s int64) string { return time.Unix(s, 0).UTC().Format("2006-01-02 15:04 UTC") },
	"join": func(v []int) string {
		s := make([]string, len(v))
		for i, n := range v {
			s[i] = fmt.Sprint(n)
		}
		return strings.Join(s, ", ")
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; max-width: 72em; margin: 1em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
figure { margin: 1em 0; }
figcaption { font-size: 0.9em; color: #555; }
img { max-width: 100%; }
.note { color: #a50; }
tr.over td { color: #a50; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<h2>Protocol</h2>
<table>
<tr><td>windows (chain size, window)</td><td>{{.Protocol.Windows}}</td></tr>
<tr><td>chain sizes (nodes)</td><td>{{join .Protocol.ChainNodes}}</td></tr>
<tr><td>first window start</td><td>{{utc .Protocol.FirstStart}}</td></tr>
<tr><td>last window start</td><td>{{utc .Protocol.LastStart}}</td></tr>
{{range .Loads}}<tr><td>{{.Name}} windows</td><td>{{.N}}</td></tr>
{{end}}</table>
{{if .Models}}<h2>Models</h2>
<table>
<tr><th>policy</th><th>kind</th><th>trained on</th><th>rows</th><th>windows</th><th>first window</th><th>last window</th><th>rounds</th><th>CV MAE (h)</th><th>model sha256</th></tr>
{{range .Models}}<tr><td>{{.Policy}}</td>{{with .Manifest}}<td>{{.Kind}}</td><td>{{.Protocol}}</td><td>{{.Rows}}</td><td>{{.Windows}}</td><td>{{utc (index .TimeRange 0)}}</td><td>{{utc (index .TimeRange 1)}}</td><td>{{.Rounds}}</td><td>{{with .CV}}{{h .Overall.MAEH}}{{else}}-{{end}}</td><td>{{printf "%.12s" .ModelSHA256}}</td>{{else}}<td colspan="9">no manifest at {{$.Quote .Dir}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{if .DQN}}<h2>DQN models</h2>
<table>
<tr><th>policy</th><th>trained on</th><th>target</th><th>episodes</th><th>decisions</th><th>gradient steps</th><th>best held-out return (h)</th><th>reactive (h)</th><th>oracle (h)</th><th>weights sha256</th></tr>
{{range .DQN}}<tr><td>{{.Policy}}</td><td>{{.Protocol}}</td><td>{{.Target}}</td><td>{{.Episodes}}</td><td>{{.Decisions}}</td><td>{{.GradSteps}}</td><td>{{gap .BestValidReturn}}</td><td>{{gap .ValidReactive}}</td><td>{{gap .ValidOracle}}</td><td>{{printf "%.12s" .WeightsSHA256}}</td></tr>
{{end}}</table>
{{end}}{{if .Points}}<h2>Operating points</h2>
<p>Each model's rule parameter per chain size, chosen on the training windows only: the parameter whose replay of out-of-fold predictions (time-blocked cross-validation) cuts interruption the most with a mean overlap within the budget. Next to it, the policy on this evaluation's validation windows (the model's own policy, or its sweep variant at the chosen value), to see how the training choice held up. Over budget (marked): no parameter met the budget on the training windows and the least overlap was chosen. Default: the chain size was not trained on and the choice over all sizes applies.</p>
<table>
<caption>Operating points: training cross-validation vs validation, per chain size.</caption>
<tr><th>policy</th><th>chain nodes</th><th>target</th><th>parameter</th><th>overlap budget (h)</th><th>training windows</th><th>training reduction</th><th>training mean overlap (h)</th><th>validated as</th><th>validation windows</th><th>validation reduction</th><th>validation mean overlap (h)</th></tr>
{{range .Points}}<tr{{if not .Train.WithinBudget}} class="over"{{end}}><td>{{.Policy}}</td><td>{{.Chain}}{{if .Default}} (default){{end}}</td><td>{{.Target}}</td><td>{{.Param}} = {{pv .Train.Value}}{{if not .Train.WithinBudget}} (over budget){{end}}</td><td>{{g .BudgetH}}</td><td>{{.Train.Windows}}</td><td>{{pct .Train.InterruptionReduction}}</td><td>{{h .Train.MeanOverlapH}}</td>{{if .Valid}}<td>{{.ValidPolicy}}</td><td>{{.Valid.Windows}}</td><td>{{pct .Valid.InterruptionReduction}}</td><td>{{h .Valid.MeanOverlapH}}</td>{{else}}<td colspan="4">not evaluated at this chain size</td>{{end}}</tr>
{{end}}</table>
{{end}}{{if .Calibration}}<h2>Calibration</h2>
<p>How well each classifier's predicted probabilities match the observed frequencies, on out-of-fold predictions of time-blocked cross-validation on the training windows: the Brier score (mean squared error of the probability; lower is better) next to the Brier score of always predicting the base rate, and the log loss (natural log). The reliability diagrams are among the figures.</p>
{{range .Calibration}}<table>
<caption>{{.Policy}}: calibration per chain size, overall and per fold.</caption>
<tr><th>out-of-fold predictions</th><th>test windows</th><th>rows</th><th>base rate</th><th>Brier</th><th>Brier of the base rate</th><th>log loss</th></tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.TestWindows}}</td><td>{{.C.Rows}}</td><td>{{f4 .C.BaseRate}}</td><td>{{f4 .C.Brier}}</td><td>{{f4 .C.BrierBaseRate}}</td><td>{{f4 .C.LogLoss}}</td></tr>
{{end}}</table>
{{end}}{{end}}<h2>Metrics</h2>
<p>Interruption = max(r, 0), overlap = max(−r, 0), r = Q.start − P.end, in hours. Cost = interruption + λ·overlap with λ = {{.Lambda}}: an hour of overlap costs {{.Lambda}} h of interruption. Reduction is 1 − interruption / reactive's; rescued is the share of the windows reactive interrupts brought to zero; cost vs oracle-cost is the mean cost over the cost-optimal oracle's (oracle-cost: in each window the submission time of least cost, the earliest on ties; 1.10 = within 10 % of its cost); gap to oracle is the mean interruption minus the oracle's (oracle: zero interruption with the least overlap). Each table is one chain size: chain sizes are never pooled.</p>
{{range .Chains}}<h3>Chains of {{.Name}} node(s)</h3>
<table>
<caption>Chains of {{.Name}} node(s), {{.N}} windows; cost = interruption + {{$.Lambda}}·overlap (h).</caption>
<tr><th>policy</th><th>windows</th><th>reduction</th><th>mean overlap (h)</th><th>mean cost (h)</th><th>zero interruption</th><th>mean interruption (h)</th><th>p90 (h)</th><th>rescued</th><th>cost vs oracle-cost</th><th>gap to oracle (h)</th><th>wasted node-h</th></tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.S.Windows}}</td><td>{{pct .S.InterruptionReduction}}</td><td>{{h .S.MeanOverlapH}}</td><td>{{h .S.MeanCostH}}</td><td>{{pct .S.ZeroInterruptionShare}}</td><td>{{h .S.MeanInterruptionH}}</td><td>{{h .S.P90InterruptionH}}</td><td>{{pct .S.RescuedShare}}</td><td>{{gap .S.CostVsOracleCost}}</td><td>{{gap .S.GapToOracleInterruptionH}}</td><td>{{h .S.WastedNodeH}}</td></tr>
{{end}}</table>
{{$chain := .Name}}{{range .Loads}}<h4>Chains of {{$chain}} node(s), load class {{.Name}} ({{.N}} windows)</h4>
<table>
<caption>Chains of {{$chain}} node(s), {{.Name}} load; cost = interruption + {{$.Lambda}}·overlap (h).</caption>
<tr><th>policy</th><th>reduction</th><th>mean overlap (h)</th><th>mean cost (h)</th><th>zero interruption</th><th>mean interruption (h)</th><th>p90 (h)</th><th>rescued</th><th>cost vs oracle-cost</th></tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{pct .S.InterruptionReduction}}</td><td>{{h .S.MeanOverlapH}}</td><td>{{h .S.MeanCostH}}</td><td>{{pct .S.ZeroInterruptionShare}}</td><td>{{h .S.MeanInterruptionH}}</td><td>{{h .S.P90InterruptionH}}</td><td>{{pct .S.RescuedShare}}</td><td>{{gap .S.CostVsOracleCost}}</td></tr>
{{end}}</table>
{{end}}{{end}}{{if .Frontier}}<h3>Frontier</h3>
<p>For each policy family (a policy, or the variants of a sweep NAME@θ=V or NAME@margin=V) and chain size, the variant with the greatest interruption reduction among those whose mean overlap is within the budget; – when none is.</p>
<table>
<caption>Best interruption reduction within a mean-overlap budget, per chain size; cost = interruption + {{.Lambda}}·overlap (h).</caption>
<tr><th>family</th><th>chain nodes</th>{{range .Budgets}}<th>overlap ≤ {{.}} h</th>{{end}}</tr>
{{range .Frontier}}<tr><td>{{.Family}}</td><td>{{.Chain}}</td>{{range .Points}}<td>{{with .}}{{.Policy}}: {{pct .InterruptionReduction}} at {{h .MeanOverlapH}} h, cost {{h .MeanCostH}} h{{else}}–{{end}}</td>{{end}}</tr>
{{end}}</table>
{{end}}<h2>Figures</h2>
{{range .Figures}}<figure>
<img alt="{{.Title}}" src="{{.Src}}" />
<figcaption>{{.Title}}. {{.Caption}}</figcaption>
</figure>
{{end}}{{range .Notes}}<p class="note">{{.}}</p>
{{end}}</body>
</html>
`))

type htmlRow struct {
	Name string
	S    evaluate.Summary
}

type htmlLoad struct {
	Name string
	N    int
	Rows []htmlRow
}

// htmlChain is one chain size's table and its load-class tables.
type htmlChain struct {
	htmlLoad
	Loads []htmlLoad
}

// htmlFrontier is one frontier row: a family in a chain size, one point
// per budget (nil: no variant meets it).
type htmlFrontier struct {
	Family, Chain string
	Points        []*evaluate.FrontierPoint
}

type htmlFigure struct {
	Title, Caption string
	Src            template.URL
}

type htmlPage struct {
	Title    string
	Protocol Protocol
	Models   []ModelInfo
	DQN      []DQNModel
	// Points is the operating-points table; Calibration has one table
	// per classifier model.
	Points      []PointRow
	Calibration []htmlCalibration
	Loads       []htmlLoad // the protocol's windows per load class (no rows)
	Lambda      string
	Chains      []htmlChain // one per chain size
	Budgets     []string    // the frontier's, hours
	Frontier    []htmlFrontier
	Figures     []htmlFigure
	Notes       []string
}

// Quote is used by the template for paths.
func (htmlPage) Quote(s string) string { return fmt.Sprintf("%q", s) }

func renderHTML(title string, rep *Report, pngs [][]byte) ([]byte, error) {
	pg := htmlPage{Title: title, Protocol: rep.Protocol, Models: rep.Models, DQN: rep.DQN, Notes: rep.Notes,
		Points: rep.OperatingPoints}
	for i := range rep.ModelDirs {
		if rep.ModelDirs[i].CalibrationFigure != "" {
			if t := calibrationTable(&rep.ModelDirs[i]); len(t.Rows) > 0 {
				pg.Calibration = append(pg.Calibration, t)
			}
		}
	}
	for _, c := range evaluate.LoadClasses {
		pg.Loads = append(pg.Loads, htmlLoad{Name: c, N: rep.Protocol.LoadWindows[c]})
	}
	pg.Lambda = strconv.FormatFloat(rep.Metrics.Lambda, 'g', -1, 64)
	for _, n := range evaluate.ChainSizes(rep.Rows) {
		k := strconv.Itoa(n)
		c := htmlChain{htmlLoad: htmlLoad{Name: k}}
		for _, name := range rep.Protocol.Policies {
			if cm, ok := rep.Metrics.Policies[name].ByChain[k]; ok {
				c.Rows = append(c.Rows, htmlRow{Name: name, S: cm.Summary})
				c.N = max(c.N, cm.Windows)
			}
		}
		for _, lc := range evaluate.LoadClasses {
			l := htmlLoad{Name: lc}
			for _, name := range rep.Protocol.Policies {
				if cm, ok := rep.Metrics.Policies[name].ByChain[k]; ok {
					l.Rows = append(l.Rows, htmlRow{Name: name, S: cm.ByLoad[lc]})
					l.N = max(l.N, cm.ByLoad[lc].Windows)
				}
			}
			if l.N > 0 { // a class without windows has no table
				c.Loads = append(c.Loads, l)
			}
		}
		pg.Chains = append(pg.Chains, c)
	}
	for _, b := range evaluate.FrontierBudgetsH {
		pg.Budgets = append(pg.Budgets, evaluate.BudgetKey(b))
	}
	var families []string
	for _, name := range rep.Protocol.Policies {
		if f := evaluate.Family(name); !slices.Contains(families, f) && rep.Metrics.Frontier[f] != nil {
			families = append(families, f)
		}
	}
	for _, n := range evaluate.ChainSizes(rep.Rows) {
		k := strconv.Itoa(n)
		for _, f := range families {
			byBudget, ok := rep.Metrics.Frontier[f][k]
			if !ok {
				continue
			}
			row := htmlFrontier{Family: f, Chain: k}
			for _, b := range pg.Budgets {
				row.Points = append(row.Points, byBudget[b])
			}
			pg.Frontier = append(pg.Frontier, row)
		}
	}
	for i, f := range rep.Figures {
		src := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngs[i])
		pg.Figures = append(pg.Figures, htmlFigure{Title: f.Title, Caption: f.Caption, Src: template.URL(src)})
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, pg); err != nil {
		return nil, fmt.Errorf("report.html: %w", err)
	}
	return buf.Bytes(), nil
}
