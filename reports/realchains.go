package reports

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
)

// htmlRealChains is the page's account of the trace's own chains
// replayed (evaluate.ChainsSummary): the sentence and a row per policy.
type htmlRealChains struct {
	Sentence string
	Rows     []htmlRealChainRow
}

type htmlRealChainRow struct {
	Name, Label                       string
	InterruptionH, OverlapH, PerLinkH string
	Zero                              string
}

// RealChainsSentence states the real chains' replay for a center: what
// the users lost on the replayed links, what the simulator's reactive
// policy gives on them and what each recommended policy (or best
// candidate, recs' order, each policy once) gives, in hours. label names
// the policies. "" when rc replayed no link.
func RealChainsSentence(rc *evaluate.ChainsSummary, recs []Recommendation, label func(string) string) string {
	if rc == nil || rc.Replayed == 0 {
		return ""
	}
	day := func(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02") }
	span := ""
	if rc.From != 0 && rc.To != 0 {
		span = fmt.Sprintf(", heads submitted %s to %s UTC", day(rc.From), day(rc.To))
	}
	s := fmt.Sprintf("On %d links of the trace's own service chains (%d detected%s), your users lost %s h to interruption; "+
		"in the simulator the reactive policy gives %s h on the same links", rc.Replayed, rc.Links, span,
		fmtH(rc.RealInterruptionH), fmtH(rc.ReactiveH))
	seen := map[string][]string{}
	var order []string
	for _, r := range recs {
		name := r.Stats.Policy
		if _, ok := rc.Policy(name); !ok {
			continue
		}
		what := "recommended"
		if !r.Recommended {
			what = "best candidate"
		}
		if _, ok := seen[name]; !ok {
			order = append(order, name)
		}
		seen[name] = append(seen[name], what+" for chains of "+strconv.Itoa(r.Nodes)+" node(s)")
	}
	var parts []string
	for _, name := range order {
		p, _ := rc.Policy(name)
		parts = append(parts, fmt.Sprintf("%s (%s) %s h, with %s h of overlap", label(name), strings.Join(seen[name], ", "),
			fmtH(p.InterruptionH), fmtH(p.OverlapH)))
	}
	if len(parts) > 0 {
		s += ", and " + strings.Join(parts, "; ")
	}
	return s + "."
}

func fmtH(h float64) string { return strconv.FormatFloat(h, 'f', 1, 64) }

// realChainsPage is the page's section of the real chains; nil without.
func realChainsPage(rep *Report, label func(string) string) *htmlRealChains {
	rc := rep.Metrics.RealChains
	if rc == nil || rc.Replayed == 0 {
		return nil
	}
	out := &htmlRealChains{Sentence: RealChainsSentence(rc, rep.Recommendations, label)}
	per := func(h float64) string { return strconv.FormatFloat(h/float64(rc.Replayed), 'f', 2, 64) }
	out.Rows = append(out.Rows, htmlRealChainRow{Name: "real", Label: "real (the trace)", InterruptionH: fmtH(rc.RealInterruptionH),
		OverlapH: fmtH(rc.RealOverlapH), PerLinkH: per(rc.RealInterruptionH), Zero: "–"})
	for _, p := range rc.Policies {
		out.Rows = append(out.Rows, htmlRealChainRow{Name: p.Policy, Label: label(p.Policy), InterruptionH: fmtH(p.InterruptionH),
			OverlapH: fmtH(p.OverlapH), PerLinkH: per(p.InterruptionH), Zero: fmt.Sprintf("%d/%d", p.ZeroInterruption, rc.Replayed)})
	}
	return out
}
