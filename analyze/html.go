package analyze

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/internal/htmlpage"
)

// maxChainRows is the number of chains the page lists (the most
// interrupted); chains.parquet has them all.
const maxChainRows = 25

var body = template.Must(template.New("body").Funcs(htmlpage.Funcs()).Funcs(template.FuncMap{
	"i64":  func(n int64) string { return htmlpage.Thousands(int(n)) },
	"dur":  fmtDur,
	"f2":   func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"utc":  func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") },
	"hrsr": func(sec int64) string { return fmt.Sprintf("%.2f", float64(sec)/3600) },
}).Parse(`<section class="summary">
<dl class="facts">
<dt>trace</dt><dd>{{.A.Trace}}{{with .A.Format}} ({{.}}){{end}}</dd>
<dt>jobs</dt><dd>{{i64 .A.Jobs}}</dd>
<dt>submissions</dt><dd>{{if or .A.FirstSubmitMs .A.LastSubmitMs}}{{utc .A.FirstSubmitMs}} to {{utc .A.LastSubmitMs}} UTC{{else}}submission dates unknown (no job has a submit time){{end}}</dd>
<dt>zone</dt><dd>{{.A.Zone}} (months, days and hours)</dd>
<dt>chains</dt><dd>{{i64 .A.ChainSummary.Chains}} chains, {{i64 .A.ChainSummary.Links}} links, {{h .A.ChainSummary.InterruptH}} h of real interruption ({{f2 .A.ChainSummary.InterruptPCM}} h per chain-month)</dd>
</dl>
</section>
{{range .Sections}}<h2 id="{{.S.ID}}">{{.S.Title}}</h2>
{{if .S.Absent}}<p class="note">Absent: {{.S.Absent}}.</p>
{{end}}{{range .S.Notes}}<p class="note">{{.}}</p>
{{end}}{{range .Figs}}{{.}}{{end}}{{.Tables}}{{end}}`))

// sectionView is one section's notes, figures and tables on the page.
type sectionView struct {
	S      Section
	Figs   []template.HTML
	Tables template.HTML
}

// page renders analysis.html.
func (a *Analysis) page(figs []figure) ([]byte, error) {
	tv := a.tableView()
	var views []sectionView
	for _, s := range a.Sections {
		v := sectionView{S: s}
		for _, f := range figs {
			if f.section != s.ID {
				continue
			}
			h, err := htmlpage.FigureHTML(htmlpage.Figure{ID: "fig-" + f.name, Title: f.title, Caption: f.caption,
				PNG: f.png, SVGHref: f.name + ".svg", WidthPx: FigureWidthPx})
			if err != nil {
				return nil, err
			}
			v.Figs = append(v.Figs, h)
		}
		if s.Absent == "" {
			var err error
			if v.Tables, err = tv.render(s.ID); err != nil {
				return nil, err
			}
		}
		views = append(views, v)
	}
	var b bytes.Buffer
	if err := body.Execute(&b, struct {
		A        *Analysis
		Sections []sectionView
	}{a, views}); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	links := []htmlpage.Link{{Text: "← Back", Back: true}}
	if a.backHref != "" {
		links = []htmlpage.Link{{Text: "← Evaluation report", Href: a.backHref}}
	}
	for _, s := range a.Sections {
		links = append(links, htmlpage.Link{Text: s.Title, Href: "#" + s.ID})
	}
	err := htmlpage.Render(&out, htmlpage.Page{Title: "Trace analysis", Subtitle: a.Trace, Links: links,
		Body: template.HTML(b.String()), Footer: a.footer()})
	return out.Bytes(), err
}

// footer is the page's last line: the version that wrote it and the
// dates of the trace (never the time of writing).
func (a *Analysis) footer() string {
	s := "Written by mirage analyze"
	if a.version != "" {
		s = "Written by mirage " + a.version + " (mirage analyze)"
	}
	if a.FirstSubmitMs != 0 || a.LastSubmitMs != 0 {
		s += " from jobs submitted " + time.UnixMilli(a.FirstSubmitMs).UTC().Format("2006-01-02") + " to " +
			time.UnixMilli(a.LastSubmitMs).UTC().Format("2006-01-02")
	}
	return s + "; every table is beside this page as Parquet."
}

// fmtSecs formats whole seconds as "2 h", "5 min", else as fmtDur.
func fmtSecs(sec int64) string {
	switch {
	case sec > 0 && sec%3600 == 0:
		return fmt.Sprintf("%d h", sec/3600)
	case sec > 0 && sec%60 == 0:
		return fmt.Sprintf("%d min", sec/60)
	}
	return fmtDur(float64(sec))
}

// partialShare is the share of a median month's jobs under which a first
// or last month is partial: the trace's edge, left out of the page's
// tables and figures (the Parquet tables keep it).
const partialShare = 0.01

// partialMonths returns the partial months of months: the first and the
// last (of at least three) with fewer jobs than partialShare of the
// median month's.
func partialMonths(months []MonthRow) map[string]bool {
	out := map[string]bool{}
	if len(months) < 3 {
		return out
	}
	jobs := make([]int64, len(months))
	for i, m := range months {
		jobs[i] = m.Jobs
	}
	slices.Sort(jobs)
	med := float64(jobs[len(jobs)/2])
	for _, m := range []MonthRow{months[0], months[len(months)-1]} {
		if float64(m.Jobs) < partialShare*med {
			out[m.Month] = true
		}
	}
	return out
}

// partialNote says which partial months the page leaves out ("" when
// none).
func partialNote(months []MonthRow, drop map[string]bool) string {
	var parts []string
	for _, m := range months {
		if drop[m.Month] {
			parts = append(parts, fmt.Sprintf("%s (%s)", m.Month, plural(m.Jobs, "job")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Left out of the tables and figures by month: %s, at the trace's edge with under %.0f %% of a median month's jobs (volume_month.parquet and fidelity.parquet keep it).",
		strings.Join(parts, " and "), 100*partialShare)
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// fmtDur formats seconds as "45 s", "12.5 min" or "3.20 h".
func fmtDur(sec float64) string {
	switch {
	case sec < 60:
		return fmt.Sprintf("%.0f s", sec)
	case sec < 3600:
		return fmt.Sprintf("%.1f min", sec/60)
	}
	return fmt.Sprintf("%.2f h", sec/3600)
}

var tables = template.Must(template.New("tables").Funcs(htmlpage.Funcs()).Funcs(template.FuncMap{
	"i64":  func(n int64) string { return htmlpage.Thousands(int(n)) },
	"dur":  fmtDur,
	"f2":   func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"f3":   func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"utc":  func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") },
	"hrs":  func(sec int64) string { return fmt.Sprintf("%.2f", float64(sec)/3600) },
	"hf":   func(sec float64) string { return fmt.Sprintf("%.2f", sec/3600) },
	"durs": fmtSecs,
}).Parse(`{{define "volume"}}{{with .Partial}}<p class="note">{{.}}</p>
{{end}}<div class="wide"><table><caption>By month (volume_month.parquet)</caption>
<tr><th>month</th><th>jobs</th><th>users</th><th>accounts</th><th>node-hours</th><th>GPU-hours</th></tr>
{{range .Months}}<tr><td>{{.Month}}</td><td>{{i64 .Jobs}}</td><td>{{i64 .Users}}</td><td>{{i64 .Accounts}}</td><td>{{printf "%.0f" .NodeHours}}</td><td>{{printf "%.0f" .GPUHours}}</td></tr>
{{end}}</table></div>
{{if .HasPartitions}}<div class="wide"><table><caption>By partition (volume_partition.parquet)</caption>
<tr><th>partition</th><th>jobs</th><th>users</th><th>accounts</th><th>node-hours</th><th>GPU-hours</th></tr>
{{range .Partitions}}<tr><td>{{.Partition}}</td><td>{{i64 .Jobs}}</td><td>{{i64 .Users}}</td><td>{{i64 .Accounts}}</td><td>{{printf "%.0f" .NodeHours}}</td><td>{{printf "%.0f" .GPUHours}}</td></tr>
{{end}}</table></div>
{{end}}<div class="wide"><table><caption>Time limits (limits.parquet)</caption>
<tr><th>limit</th><th>jobs</th><th>node-hours</th></tr>
{{range .Limits}}<tr><td>{{.Class}}</td><td>{{i64 .Jobs}}</td><td>{{printf "%.0f" .NodeHours}}</td></tr>
{{end}}</table></div>
<div class="wide"><table><caption>Job sizes (job_sizes.parquet; the {{len .TopSizes}} most common)</caption>
<tr><th>nodes</th><th>jobs</th><th>node-hours</th></tr>
{{range .TopSizes}}<tr><td>{{.Nodes}}</td><td>{{i64 .Jobs}}</td><td>{{printf "%.0f" .NodeHours}}</td></tr>
{{end}}</table></div>
{{end}}{{define "utilisation"}}<div class="wide"><table><caption>Utilisation (utilisation.parquet hourly; profiles.parquet)</caption>
<tr><td>mean utilisation</td><td>{{pct .MeanUtil}}</td></tr>
<tr><td>mean busy nodes</td><td>{{f2 .MeanBusy}}</td></tr>
<tr><td>most nodes busy at once</td><td>{{.PeakBusy}}</td></tr>
</table></div>
{{end}}{{define "queue"}}<div class="wide"><table><caption>Queue (queue.parquet hourly)</caption>
<tr><td>mean pending jobs</td><td>{{f2 .MeanPending}}</td></tr>
<tr><td>mean backlog (hours of full-machine work)</td><td>{{f2 .MeanBacklog}}</td></tr>
<tr><td>largest hourly backlog (hours)</td><td>{{f2 .PeakBacklog}}</td></tr>
</table></div>
{{end}}{{define "waits"}}<div class="wide"><table><caption>Waits (waits.parquet; CDFs in wait_cdf.parquet)</caption>
<tr><th>group</th><th>jobs</th><th>mean (h)</th><th>p50 (h)</th><th>p90 (h)</th><th>p99 (h)</th><th>waited longer than it ran</th></tr>
{{range .Waits}}<tr><td>{{.GroupBy}}: {{.Group}}</td><td>{{i64 .Jobs}}</td><td>{{hf .MeanSec}}</td><td>{{hf .P50Sec}}</td><td>{{hf .P90Sec}}</td><td>{{hf .P99Sec}}</td><td>{{pct .ShareLongerThanRun}}</td></tr>
{{end}}</table></div>
{{end}}{{define "runtime_limit"}}<div class="wide"><table><caption>Run time / time limit by user class (runtime_limit.parquet)</caption>
<tr><th>user class</th><th>users</th><th>jobs</th><th>p10</th><th>p25</th><th>p50</th><th>p75</th><th>p90</th><th>ran to limit</th><th>under 10%</th></tr>
{{range .RunLimit}}<tr><td>{{.UserClass}}</td><td>{{i64 .Users}}</td><td>{{i64 .Jobs}}</td><td>{{f2 .P10}}</td><td>{{f2 .P25}}</td><td>{{f2 .P50}}</td><td>{{f2 .P75}}</td><td>{{f2 .P90}}</td><td>{{pct .ShareAtLimit}}</td><td>{{pct .ShareUnderTenth}}</td></tr>
{{end}}</table></div>
{{end}}{{define "chains"}}{{with .ChainSummary}}<p>A chain is a run of jobs of one user that continue one another: same job name (or same account, node count and limit), each predecessor ran to within min({{durs .Options.LimitSlackSec}}, 10%) of its limit or timed out, the successor was submitted before the predecessor ended or at most {{durs .Options.MaxSubmitAfterEndSec}} after, and started after the predecessor's start and at most {{durs .Options.MaxOverlapSec}} before its end. r = successor start − predecessor end: &gt; 0 interruption, &lt; 0 overlap.</p>
<div class="wide"><table><caption>All chains (chains.parquet, chain_links.parquet, chain_lengths.parquet)</caption>
<tr><td>chains</td><td>{{i64 .Chains}}</td></tr>
<tr><td>links (successor jobs)</td><td>{{i64 .Links}}</td></tr>
<tr><td>jobs in chains</td><td>{{i64 .JobsInChains}}</td></tr>
<tr><td>interrupted links (r &gt; 0)</td><td>{{i64 .Interrupted}}</td></tr>
<tr><td>overlapping links (r &lt; 0)</td><td>{{i64 .Overlapping}}</td></tr>
<tr><td>successor submitted before the predecessor ended</td><td>{{i64 .Before}}</td></tr>
<tr><td>successor submitted after it ended</td><td>{{i64 .After}}</td></tr>
<tr><td>real interruption (h)</td><td>{{h .InterruptH}}</td></tr>
<tr><td>real overlap (h)</td><td>{{h .OverlapH}}</td></tr>
<tr><td>median r (h)</td><td>{{hf .MedianRSec}}</td></tr>
<tr><td>chain-months</td><td>{{f2 .ChainMonths}}</td></tr>
<tr><td>interruption hours per chain-month</td><td>{{f2 .InterruptPCM}}</td></tr>
<tr><td>jobs held by a dependency (Reason Dependency) / linked as successors</td><td>{{i64 .DependencyJobs}} / {{i64 .DependencyLinked}}</td></tr>
</table></div>
{{if .ReplayedLinks}}<div class="wide"><table><caption>The same links replayed in the simulator ({{i64 .ReplayedChains}} chains, {{i64 .ReplayedLinks}} links)</caption>
<tr><th></th><th>interruption (h)</th><th>overlap (h)</th></tr>
<tr><td>real</td><td>{{h .RealReplayedH}}</td><td></td></tr>
<tr><td>reactive (submit at the predecessor's simulated end)</td><td>{{h .ReactiveInterruptH}}</td><td>{{h .ReactiveOverlapH}}</td></tr>
<tr><td>oracle (best submission time, in hindsight)</td><td>{{h .OracleInterruptH}}</td><td>{{h .OracleOverlapH}}</td></tr>
</table></div>
{{end}}{{end}}{{if .Lengths}}<div class="wide"><table><caption>Chain lengths</caption>
<tr><th>jobs in chain</th><th>chains</th></tr>
{{range .Lengths}}<tr><td>{{.Length}}</td><td>{{i64 .Chains}}</td></tr>
{{end}}</table></div>
{{end}}{{if .TopChains}}<div class="wide"><table class="nowrap"><caption>The {{len .TopChains}} most interrupted chains</caption>
<tr><th>chain</th><th>user</th><th>name</th><th>nodes</th><th>limit (h)</th><th>jobs</th><th>first start (UTC)</th><th>interrupted links</th><th>overlapping</th><th>submitted before end</th><th>interruption (h)</th><th>overlap (h)</th><th>h per chain-month</th><th>replayed</th><th>reactive (h)</th><th>oracle (h)</th></tr>
{{range .TopChains}}<tr><td>{{.Chain}}</td><td>{{.User}}</td><td>{{.JobName}}</td><td>{{.Nodes}}</td><td>{{hrs .TimelimitSec}}</td><td>{{.Jobs}}</td><td>{{utc .FirstStart}}</td><td>{{.Interrupted}}</td><td>{{.Overlapping}}</td><td>{{.Before}}</td><td>{{h .InterruptH}}</td><td>{{h .OverlapH}}</td><td>{{f2 .InterruptPCM}}</td><td>{{.Replayed}}</td>{{if .Replayed}}<td>{{h .ReactiveInterruptH}}</td><td>{{h .OracleInterruptH}}</td>{{else}}<td></td><td></td>{{end}}</tr>
{{end}}</table></div>
{{end}}{{end}}{{define "fidelity"}}<p>The whole trace replayed in the simulator ({{.SimNodes}} nodes{{if .SimCapacitySteps}}, {{.SimCapacitySteps}} inferred capacity steps{{end}}): simulated against real waits of the jobs that ran in both.</p>
<div class="wide"><table><caption>Fidelity (fidelity.parquet)</caption>
<tr><th>month</th><th>jobs</th><th>Spearman</th><th>within 2×</th><th>jobs waiting over a minute</th><th>MAE (h)</th><th>median |error| (h)</th></tr>
{{range .Fidelity}}<tr><td>{{.Month}}</td><td>{{i64 .Jobs}}</td><td>{{f3 .Spearman}}</td><td>{{pct .Within2x}}</td><td>{{i64 .Within2xJobs}}</td><td>{{f2 .MAEHours}}</td><td>{{f2 .MedianAbsH}}</td></tr>
{{end}}</table></div>
{{end}}`))

// tableView adds the page's derived figures to the analysis.
type tableView struct {
	*Analysis
	// Months and Fidelity are the analysis' without its partial edge
	// months (partialMonths), which Partial names.
	Months                                []MonthRow
	Fidelity                              []FidelityRow
	Partial                               string
	HasPartitions                         bool
	TopSizes                              []SizeRow
	TopChains                             []ChainRow
	MeanUtil, MeanBusy                    float64
	PeakBusy                              int64
	MeanPending, MeanBacklog, PeakBacklog float64
}

// tableView returns the page's view of a's tables.
func (a *Analysis) tableView() *tableView {
	v := &tableView{Analysis: a, HasPartitions: len(a.Partitions) > 1 || len(a.Partitions) == 1 && a.Partitions[0].Partition != ""}
	drop := partialMonths(a.Months)
	for _, m := range a.Months {
		if !drop[m.Month] {
			v.Months = append(v.Months, m)
		}
	}
	for _, f := range a.Fidelity {
		if !drop[f.Month] {
			v.Fidelity = append(v.Fidelity, f)
		}
	}
	v.Partial = partialNote(a.Months, drop)
	v.TopSizes = slices.Clone(a.Sizes)
	slices.SortStableFunc(v.TopSizes, func(x, y SizeRow) int { return cmp.Compare(y.Jobs, x.Jobs) })
	v.TopSizes = v.TopSizes[:min(len(v.TopSizes), 12)]
	v.TopChains = topChains(a, maxChainRows)
	for _, u := range a.Util {
		v.MeanUtil += u.Utilisation
		v.MeanBusy += u.BusyNodesMean
		v.PeakBusy = max(v.PeakBusy, u.BusyNodesMax)
	}
	if n := float64(len(a.Util)); n > 0 {
		v.MeanUtil, v.MeanBusy = v.MeanUtil/n, v.MeanBusy/n
	}
	for _, q := range a.Queue {
		v.MeanPending += q.PendingJobsMean
		v.MeanBacklog += q.BacklogFullMachineHrs
		v.PeakBacklog = max(v.PeakBacklog, q.BacklogFullMachineHrs)
	}
	if n := float64(len(a.Queue)); n > 0 {
		v.MeanPending, v.MeanBacklog = v.MeanPending/n, v.MeanBacklog/n
	}
	return v
}

// topChains returns the n chains with the most interruption hours, most
// first (the earlier chain on ties), without sorting them all.
func topChains(a *Analysis, n int) []ChainRow {
	top := make([]ChainRow, 0, n+1)
	a.EachChain(func(c ChainRow, _ []LinkRow) {
		if len(top) == n && c.InterruptH <= top[n-1].InterruptH {
			return
		}
		i := sort.Search(len(top), func(i int) bool { return top[i].InterruptH < c.InterruptH })
		top = slices.Insert(top, i, c)
		if len(top) > n {
			top = top[:n]
		}
	})
	return top
}

// render renders the tables of section id ("" when it has none).
func (v *tableView) render(id string) (template.HTML, error) {
	if tables.Lookup(id) == nil {
		return "", nil
	}
	var b bytes.Buffer
	if err := tables.ExecuteTemplate(&b, id, v); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
