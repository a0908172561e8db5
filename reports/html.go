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
{{end}}<h2>Metrics</h2>
<p>Interruption = max(r, 0), overlap = max(−r, 0), r = Q.start − P.end. Reduction is 1 − interruption / reactive's; rescued is the share of the windows reactive interrupts brought to zero; gap is the mean interruption minus the oracle's.</p>
<table>
<tr><th>policy</th><th>windows</th><th>mean interruption (h)</th><th>median (h)</th><th>p90 (h)</th><th>zero interruption</th><th>rescued</th><th>reduction</th><th>mean overlap (h)</th><th>wasted node-h</th><th>gap to oracle (h)</th></tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.S.Windows}}</td><td>{{h .S.MeanInterruptionH}}</td><td>{{h .S.MedianInterruptionH}}</td><td>{{h .S.P90InterruptionH}}</td><td>{{pct .S.ZeroInterruptionShare}}</td><td>{{pct .S.RescuedShare}}</td><td>{{pct .S.InterruptionReduction}}</td><td>{{h .S.MeanOverlapH}}</td><td>{{h .S.WastedNodeH}}</td><td>{{gap .S.GapToOracleInterruptionH}}</td></tr>
{{end}}</table>
{{range .Loads}}<h3>Load class: {{.Name}} ({{.N}} windows)</h3>
<table>
<tr><th>policy</th><th>mean interruption (h)</th><th>p90 (h)</th><th>zero interruption</th><th>rescued</th><th>reduction</th><th>mean overlap (h)</th></tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{h .S.MeanInterruptionH}}</td><td>{{h .S.P90InterruptionH}}</td><td>{{pct .S.ZeroInterruptionShare}}</td><td>{{pct .S.RescuedShare}}</td><td>{{pct .S.InterruptionReduction}}</td><td>{{h .S.MeanOverlapH}}</td></tr>
{{end}}</table>
{{end}}{{range .Chains}}<h3>Chains of {{.Name}} node(s)</h3>
<table>
<tr><th>policy</th><th>windows</th><th>mean interruption (h)</th><th>p90 (h)</th><th>zero interruption</th><th>rescued</th><th>reduction</th><th>mean overlap (h)</th><th>gap to oracle (h)</th></tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.S.Windows}}</td><td>{{h .S.MeanInterruptionH}}</td><td>{{h .S.P90InterruptionH}}</td><td>{{pct .S.ZeroInterruptionShare}}</td><td>{{pct .S.RescuedShare}}</td><td>{{pct .S.InterruptionReduction}}</td><td>{{h .S.MeanOverlapH}}</td><td>{{gap .S.GapToOracleInterruptionH}}</td></tr>
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

type htmlFigure struct {
	Title, Caption string
	Src            template.URL
}

type htmlPage struct {
	Title    string
	Protocol Protocol
	Models   []ModelInfo
	DQN      []DQNModel
	Rows     []htmlRow
	Loads    []htmlLoad
	Chains   []htmlLoad // by chain size, when the evaluation has more than one
	Figures  []htmlFigure
	Notes    []string
}

// Quote is used by the template for paths.
func (htmlPage) Quote(s string) string { return fmt.Sprintf("%q", s) }

func renderHTML(title string, rep *Report, pngs [][]byte) ([]byte, error) {
	pg := htmlPage{Title: title, Protocol: rep.Protocol, Models: rep.Models, DQN: rep.DQN, Notes: rep.Notes}
	for _, name := range rep.Protocol.Policies {
		pg.Rows = append(pg.Rows, htmlRow{Name: name, S: rep.Metrics.Policies[name].Summary})
	}
	for _, c := range evaluate.LoadClasses {
		l := htmlLoad{Name: c, N: rep.Protocol.LoadWindows[c]}
		for _, name := range rep.Protocol.Policies {
			l.Rows = append(l.Rows, htmlRow{Name: name, S: rep.Metrics.Policies[name].ByLoad[c]})
		}
		pg.Loads = append(pg.Loads, l)
	}
	var sizes []int
	for _, name := range rep.Protocol.Policies {
		for k := range rep.Metrics.Policies[name].ByChain {
			if n, err := strconv.Atoi(k); err == nil && !slices.Contains(sizes, n) {
				sizes = append(sizes, n)
			}
		}
	}
	slices.Sort(sizes)
	if len(sizes) > 1 {
		for _, n := range sizes {
			k := strconv.Itoa(n)
			l := htmlLoad{Name: k}
			for _, name := range rep.Protocol.Policies {
				l.Rows = append(l.Rows, htmlRow{Name: name, S: rep.Metrics.Policies[name].ByChain[k]})
			}
			pg.Chains = append(pg.Chains, l)
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
