package reports

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/trace"
)

func TestWithheld(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	good := Recommendation{Nodes: 1, ReactiveH: 2, Stats: Stats{Label: "a", Windows: 30,
		Reduction: Interval{Point: 0.4, Lo: 0.2, Hi: 0.6}}}
	noRed := good
	noRed.Stats.Reduction = Interval{Point: 0.1, Lo: -0.05, Hi: 0.3}
	quiet := good
	quiet.ReactiveH = 0.01
	fid := func(rho float64) *Fidelity { return &Fidelity{Jobs: 1000, Spearman: f(rho)} }
	for _, c := range []struct {
		name     string
		r        Recommendation
		reactive bool
		in       groundsInput
		want     []string // the reasons' kinds, in order
	}{
		{"Grounded", good, true, groundsInput{fidelity: fid(0.7), trace: true, waitsKnown: 1000}, nil},
		{"NoFidelityMeasured", good, true, groundsInput{}, nil},
		{"WaitsUnknown", good, true, groundsInput{trace: true}, []string{"waits-unknown"}},
		{"FidelityNoJobs", good, true, groundsInput{fidelity: &Fidelity{}}, []string{"waits-unknown"}},
		{"LowFidelity", good, true, groundsInput{fidelity: fid(0.3), trace: true, waitsKnown: 1000}, []string{"low-fidelity"}},
		{"ThresholdSet", good, true, groundsInput{grounds: Grounds{MinSpearman: 0.2}, fidelity: fid(0.3)}, nil},
		{"FidelityOff", good, true, groundsInput{grounds: Grounds{MinSpearman: -1}, fidelity: fid(0.1)}, nil},
		{"NothingToSave", quiet, true, groundsInput{fidelity: fid(0.7)}, []string{"nothing-to-save"}},
		{"NegligibleSet", quiet, true, groundsInput{grounds: Grounds{NegligibleH: 0.001}}, nil},
		{"NoReactiveEvaluated", quiet, false, groundsInput{}, nil},
		{"NoReduction", noRed, true, groundsInput{}, []string{"no-reduction"}},
		{"LowFidelityAndNoReduction", noRed, true, groundsInput{fidelity: fid(0.1)}, []string{"low-fidelity", "no-reduction"}},
		{"WaitsUnknownAndNothingToSave", quiet, true, groundsInput{trace: true}, []string{"waits-unknown", "nothing-to-save"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, r := range withheld(c.r, c.reactive, c.in) {
				if r.Cause == "" || r.Next == "" {
					t.Errorf("reason %s without a cause or a next step", r.Kind)
				}
				got = append(got, r.Kind)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("withheld: %v, want %v", got, c.want)
			}
		})
	}
}

// writeTrace writes a trace of n jobs with submissions a day apart; with
// starts, each started an hour after its submission, else its start is
// unknown.
func writeTrace(t *testing.T, n int, starts bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.parquet")
	w, err := trace.Create(path, trace.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		j := trace.NewJob()
		j.JobID = "j" + string(rune('a'+i))
		j.Submit = time.Unix(1_700_000_000+int64(i)*86400, 0).UTC()
		j.ElapsedSec = 3600
		if starts {
			j.Start = j.Submit.Add(time.Hour)
			j.End = j.Start.Add(time.Hour)
		}
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// groundedRows is an evaluation where a policy saves most of reactive's
// interruption in every one of 12 windows, scaled by scale (0: reactive
// is never interrupted).
func groundedRows(scale int64) []evaluate.Row {
	const h = 3600
	var rows []evaluate.Row
	for w := range 12 {
		start := int64(1_700_000_000 + w*43200)
		pEnd := start + 60*h
		react := scale * int64(2+w%3) * h
		for _, o := range []struct {
			p string
			r int64
		}{{"reactive", react}, {"avg", react / 10}, {"oracle", 0}} {
			rows = append(rows, evaluate.Row{Policy: o.p, ChainNodes: 1, Window: w, WindowStart: start,
				PSubmit: start + 48*h, PStart: start + 49*h, PEnd: pEnd, Submit: pEnd - 2*h, QStart: pEnd + o.r,
				RSec: o.r, ReactiveRSec: react})
		}
	}
	return rows
}

// renderPage renders rows with opts and returns the report and its page.
func renderPage(t *testing.T, rows []evaluate.Row, opts Options) (Report, string) {
	t.Helper()
	dir := t.TempDir()
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
		t.Fatal(err)
	}
	opts.Resamples = 200
	rep, err := Render(context.Background(), dir, filepath.Join(t.TempDir(), "report"), opts)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(rep.HTML)
	if err != nil {
		t.Fatal(err)
	}
	return rep, string(page)
}

// TestRender_Grounds: the page recommends only with grounds, and says
// first why it does not otherwise.
func TestRender_Grounds(t *testing.T) {
	rho := 0.8
	good := &Fidelity{Jobs: 500, Spearman: &rho}
	for _, c := range []struct {
		name string
		rows []evaluate.Row
		opts Options
		want string // the reason's kind, "" for a recommendation
		text string // on the page
	}{
		{"Grounded", groundedRows(1), Options{Fidelity: good}, "", "Chains of 1 node(s): deploy"},
		{"WaitsUnknown", groundedRows(1), Options{Trace: "unknown"}, "waits-unknown", "cannot be measured: the trace records no job"},
		{"ReactiveNeverInterrupted", groundedRows(0), Options{Fidelity: good}, "nothing-to-save", "there is nothing to save"},
		{"LowFidelity", groundedRows(1), Options{Fidelity: &Fidelity{Jobs: 500, Spearman: new(float64)}}, "low-fidelity", "the simulated queue is not the cluster"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.opts.Trace == "unknown" {
				c.opts.Trace = writeTrace(t, 5, false)
			}
			rep, page := renderPage(t, c.rows, c.opts)
			r := rep.Recommendations[0]
			if c.want == "" {
				if !r.Recommended || len(r.Withheld) > 0 {
					t.Fatalf("withheld %v, want a recommendation", r.Withheld)
				}
				if strings.Contains(page, "no recommendation") {
					t.Error("the page says no recommendation")
				}
			} else {
				if r.Recommended || len(r.Withheld) == 0 || r.Withheld[0].Kind != c.want {
					t.Fatalf("recommended %v, withheld %v; want withheld for %s", r.Recommended, r.Withheld, c.want)
				}
				i := strings.Index(page, "Chains of 1 node(s): no recommendation.")
				if i < 0 || strings.Contains(page, "deploy ") {
					t.Fatal("the page does not say it recommends nothing, or still says deploy")
				}
				if j := strings.Index(page, `data-reason="`+c.want+`"`); j < i {
					t.Errorf("the reason %s is not stated after the refusal", c.want)
				}
			}
			if !strings.Contains(page, c.text) {
				t.Errorf("the page lacks %q", c.text)
			}
			g, err := ReadGrounds(rep.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Recommendations) != 1 || g.Recommendations[0].Recommended != (c.want == "") ||
				c.want != "" && g.Recommendations[0].Withheld[0].Kind != c.want {
				t.Errorf("%s: %+v, want the page's verdict", GroundsFile, g.Recommendations)
			}
			if strings.Contains(page, "0001-01-01") {
				t.Error("the page shows a zero date")
			}
		})
	}
}

func TestWithheld_Chains(t *testing.T) {
	rho := 0.8
	good := Recommendation{Nodes: 1, ReactiveH: 2, Stats: Stats{Label: "a", Windows: 30, Reduction: Interval{Point: 0.4, Lo: 0.2, Hi: 0.6}}}
	for _, c := range []struct {
		name   string
		chains *ChainCheck
		g      Grounds
		want   bool // withheld for chains-mismatch
	}{
		{"None", nil, Grounds{}, false},
		{"Close", &ChainCheck{Links: 50, RealH: 100, ReactiveH: 80}, Grounds{}, false},
		{"SixteenTimes", &ChainCheck{Links: 496, RealH: 1662.6, ReactiveH: 100.7}, Grounds{}, true},
		{"SimulatedMore", &ChainCheck{Links: 40, RealH: 10, ReactiveH: 30}, Grounds{}, true},
		{"NoneSimulated", &ChainCheck{Links: 40, RealH: 10}, Grounds{}, true},
		{"FewLinks", &ChainCheck{Links: 5, RealH: 100, ReactiveH: 1}, Grounds{}, false},
		{"NoneFound", &ChainCheck{}, Grounds{}, false},
		{"RatioSet", &ChainCheck{Links: 40, RealH: 10, ReactiveH: 30}, Grounds{MaxChainRatio: 4}, false},
		{"Off", &ChainCheck{Links: 40, RealH: 10, ReactiveH: 300}, Grounds{MaxChainRatio: -1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := groundsInput{grounds: c.g, fidelity: &Fidelity{Jobs: 100, Spearman: &rho, Chains: c.chains}}
			got := false
			for _, r := range withheld(good, true, in) {
				got = got || r.Kind == "chains-mismatch"
			}
			if got != c.want {
				t.Errorf("chains-mismatch %v, want %v", got, c.want)
			}
		})
	}
}

// TestFidelityText_Chains: the summary states the chains' check, or that
// none could be made when the trace's chains gave no link.
func TestFidelityText_Chains(t *testing.T) {
	rho := 0.9
	for _, c := range []struct {
		name   string
		chains *ChainCheck
		want   string
	}{
		{"Checked", &ChainCheck{Links: 12, RealH: 30, ReactiveH: 20}, "the trace's own chains really lost 30.0 h of interruption on 12 replayed links, the simulator's reactive replay of them 20.0 h"},
		{"NoneFound", &ChainCheck{}, NoChainsText},
		{"NotRun", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fidelityText(&Report{Fidelity: &Fidelity{Jobs: 100, Spearman: &rho, Chains: c.chains}})
			if c.want == "" && strings.Contains(got, "chains") || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("fidelity text %q, want it to hold %q", got, c.want)
			}
		})
	}
}
