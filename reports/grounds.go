package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/internal/htmlpage"
)

// Default grounds: the thresholds under which the report recommends
// nothing (Grounds).
const (
	// DefaultMinSpearman is the least rank correlation (Spearman) of the
	// simulated waits with the real ones at which the simulated queue is
	// taken to be the cluster's.
	DefaultMinSpearman = 0.5
	// DefaultNegligibleH is the reactive policy's mean interruption per
	// window (hours) below which there is nothing to save: 3 minutes.
	DefaultNegligibleH = 0.05
	// DefaultMaxChainRatio is the most the simulated reactive
	// interruption of the trace's own chains may differ from their real
	// one, as a factor either way.
	DefaultMaxChainRatio = 2.0
	// minChainLinks is the fewest replayed links of real chains the ratio
	// is judged on.
	minChainLinks = 10
)

// Grounds are the thresholds a recommendation must clear: without them
// the report says why it recommends nothing instead of recommending.
type Grounds struct {
	// MinSpearman is the least wait Spearman of the simulator's replay
	// (Fidelity); 0 means DefaultMinSpearman, a negative value checks
	// no fidelity.
	MinSpearman float64 `json:"min_spearman"`
	// NegligibleH is the reactive policy's mean interruption per window
	// (hours) at or below which nothing is to be saved; 0 means
	// DefaultNegligibleH.
	NegligibleH float64 `json:"negligible_interruption_h"`
	// MaxChainRatio is the most the trace's own chains' simulated
	// reactive interruption may differ from their real one (a factor
	// either way, Fidelity.Chains); 0 means DefaultMaxChainRatio, a
	// negative value checks no chains.
	MaxChainRatio float64 `json:"max_chain_ratio"`
	// Calibrated says the simulator was already fitted to the trace's
	// waits (mirage sim calibrate), so that a low fidelity's next step is
	// not to calibrate again.
	Calibrated bool `json:"calibrated,omitempty"`
}

func (g Grounds) withDefaults() Grounds {
	if g.MinSpearman == 0 {
		g.MinSpearman = DefaultMinSpearman
	}
	if g.NegligibleH <= 0 {
		g.NegligibleH = DefaultNegligibleH
	}
	if g.MaxChainRatio == 0 {
		g.MaxChainRatio = DefaultMaxChainRatio
	}
	return g
}

// ChainCheck is the trace's own service chains (found by mirage
// analyze) replayed in the simulator: what their jobs really lost to
// interruption and what the simulator's reactive replay of the same
// links gives.
type ChainCheck struct {
	Links     int64   `json:"replayed_links"`
	RealH     float64 `json:"real_interruption_h"`
	ReactiveH float64 `json:"simulated_reactive_interruption_h"`
}

// ratio is the larger of real/simulated and simulated/real (+Inf when one
// of them is 0 and the other is not; 1 when both are).
func (c ChainCheck) ratio() float64 {
	switch {
	case c.RealH == c.ReactiveH:
		return 1
	case c.RealH == 0 || c.ReactiveH == 0:
		return math.Inf(1)
	}
	return max(c.RealH/c.ReactiveH, c.ReactiveH/c.RealH)
}

// Fidelity is how well the simulator replays the trace's real waits (a
// whole-trace replay, mirage sim replay), as the report's grounds read
// it.
type Fidelity struct {
	// Source says what was replayed (profile, months), for the page.
	Source string `json:"source,omitempty"`
	// Jobs is the number of jobs whose real and simulated waits were
	// compared; 0 when the trace records no start (waits unknown).
	Jobs int `json:"jobs"`
	// Spearman is the rank correlation of the simulated waits with the
	// real ones, Within2x the share of jobs whose simulated wait is within
	// a factor of 2 of the real one (nil when not measured), MAEH the
	// mean absolute wait error (hours).
	Spearman *float64 `json:"wait_spearman,omitempty"`
	Within2x *float64 `json:"within_2x,omitempty"`
	MAEH     *float64 `json:"wait_mae_h,omitempty"`
	// Chains, when not nil, is the trace's own chains' check.
	Chains *ChainCheck `json:"chains,omitempty"`
}

// A Reason is why a chain size's recommendation is withheld: its Cause
// and the Next step that would give grounds.
type Reason struct {
	// Kind is "waits-unknown", "low-fidelity", "chains-mismatch",
	// "nothing-to-save" or "no-reduction".
	Kind  string `json:"kind"`
	Cause string `json:"cause"`
	Next  string `json:"next"`
}

// groundsInput is what the grounds are judged on, beside a
// recommendation's figures.
type groundsInput struct {
	grounds Grounds
	// fidelity is the simulator's (nil: not measured).
	fidelity *Fidelity
	// trace says whether a trace was given, and waitsKnown is the
	// number of its jobs with a recorded wait.
	trace      bool
	waitsKnown int
}

// withheld returns the reasons why r must not be recommended, in the
// order the page states them: the simulated queue first (waits unknown,
// low fidelity), then the figures (nothing to save, no reduction).
func withheld(r Recommendation, reactive bool, in groundsInput) []Reason {
	g := in.grounds.withDefaults()
	var out []Reason
	switch {
	case in.trace && in.waitsKnown == 0 || in.fidelity != nil && in.fidelity.Jobs == 0:
		out = append(out, Reason{Kind: "waits-unknown",
			Cause: "the trace records no job's start, so its waits are unknown and the simulator's fidelity cannot be measured: nothing shows that the simulated queue is the cluster's",
			Next:  "use a trace with start times (sacct's Start, an SWF wait time other than -1); mirage sim replay --trace T.parquet measures the fidelity"})
	case g.MinSpearman > 0 && in.fidelity != nil && in.fidelity.Spearman != nil && *in.fidelity.Spearman < g.MinSpearman:
		out = append(out, Reason{Kind: "low-fidelity",
			Cause: fmt.Sprintf("the simulator's waits rank the real ones at a Spearman of %.2f over %d jobs, below the %.2f the figures need: the simulated queue is not the cluster's",
				*in.fidelity.Spearman, in.fidelity.Jobs, g.MinSpearman),
			Next: lowFidelityNext(in.grounds.Calibrated)})
	}
	if c := in.fidelity.chains(); c != nil && g.MaxChainRatio > 0 && c.Links >= minChainLinks && c.ratio() > g.MaxChainRatio {
		out = append(out, Reason{Kind: "chains-mismatch",
			Cause: fmt.Sprintf("the trace's own service chains really lost %.1f h of interruption on %d replayed links, but the simulator's reactive replay of the same links gives %.1f h (more than %g× apart): its queue does not wait as the cluster's does",
				c.RealH, c.Links, c.ReactiveH, g.MaxChainRatio),
			Next: "describe the cluster's partitions and limits in the profile (the chains' partition first), calibrate on the months the chains ran, then rerun"})
	}
	if reactive && r.ReactiveH <= g.NegligibleH {
		out = append(out, Reason{Kind: "nothing-to-save",
			Cause: fmt.Sprintf("the reactive policy (submit Q when P ends) loses only %.2f h of interruption per window, at most the %.2f h that is negligible: there is nothing to save",
				r.ReactiveH, g.NegligibleH),
			Next: "submit successors when their predecessor ends; if the cluster's chains do wait, check the study's partition and chain shape"})
	} else if r.Stats.Windows > 0 && !(r.Stats.Reduction.Lo > 0) && !math.IsNaN(r.Stats.Reduction.Point) {
		out = append(out, Reason{Kind: "no-reduction",
			Cause: fmt.Sprintf("the best candidate, %s, cuts interruption by %.1f %% against the reactive policy, but its 95 %% interval (%.1f to %.1f %%) includes no reduction",
				r.Stats.Label, 100*r.Stats.Reduction.Point, 100*r.Stats.Reduction.Lo, 100*r.Stats.Reduction.Hi),
			Next: "evaluate more validation windows (a longer validation period) or train on more windows"})
	}
	return out
}

// NoChainsText says that the trace's own chains could not check the
// simulator: none was replayed.
const NoChainsText = "the trace's own chains could not check the simulator: none was found in the study's months (analyze's detector pairs a user's jobs of one shape, each submitted near its predecessor's end, and needs their time limits)"

// fidelityText states the simulator's fidelity for the page's summary:
// its figures against the grounds' threshold, that it cannot be measured
// (waits unknown), or that it was not measured.
func fidelityText(rep *Report) string {
	f := rep.Fidelity
	switch {
	case f != nil && f.Jobs > 0:
		s := fmt.Sprintf("simulated waits against the real ones of %s jobs", htmlpage.Thousands(f.Jobs))
		if f.Source != "" {
			s += " (" + f.Source + ")"
		}
		if f.Spearman != nil {
			s += fmt.Sprintf(": Spearman %.2f", *f.Spearman)
		}
		if f.Within2x != nil {
			s += fmt.Sprintf(", %.1f %% within 2×", 100**f.Within2x)
		}
		if f.MAEH != nil {
			s += fmt.Sprintf(", mean absolute error %.2f h", *f.MAEH)
		}
		if g := rep.Grounds.withDefaults(); g.MinSpearman > 0 {
			s += fmt.Sprintf(" (a recommendation needs a Spearman of %.2f)", g.MinSpearman)
		}
		if c := f.Chains; c != nil && c.Links > 0 {
			s += fmt.Sprintf("; the trace's own chains really lost %.1f h of interruption on %d replayed links, the simulator's reactive replay of them %.1f h",
				c.RealH, c.Links, c.ReactiveH)
		} else if c != nil {
			s += "; " + NoChainsText
		}
		return s
	case f != nil || rep.Study.Trace != "" && rep.Study.TraceWaits == 0:
		return "cannot be measured: the trace records no job's start, so its waits are unknown"
	}
	return "not measured (mirage sim replay --trace T.parquet --profile P measures it)"
}

// lowFidelityNext is the next step of a low fidelity: calibrate, or,
// once calibrated, describe what the calibration cannot find.
func lowFidelityNext(calibrated bool) string {
	if calibrated {
		return "the calibration of the simulator's settings reached no better: describe the cluster in a profile file by hand (its partitions, priority weights, reservations and per-user limits, what the search cannot find; mirage sim profile show default is a start, mirage sim replay --profile FILE measures each edit), then rerun"
	}
	return "fit the simulator to the trace (mirage sim calibrate, or a study's cluster.calibrate: true; a profile with the cluster's partitions, priority and backfill), then rerun"
}

// GroundsFile is the report directory's machine-readable verdict: the
// simulator's fidelity, the grounds' thresholds and, per chain size,
// whether a policy is recommended or why not (GroundsSummary).
const GroundsFile = "grounds.json"

// GroundsSummary is GroundsFile's content.
type GroundsSummary struct {
	Fidelity        *Fidelity      `json:"fidelity"`
	Grounds         Grounds        `json:"grounds"`
	Recommendations []GroundsChain `json:"recommendations"`
}

// GroundsChain is one chain size's verdict: the recommended policy, or
// none (Policy is then the best candidate) with the reasons.
type GroundsChain struct {
	ChainNodes  int      `json:"chain_nodes"`
	Recommended bool     `json:"recommended"`
	Policy      string   `json:"policy"`
	Withheld    []Reason `json:"withheld,omitempty"`
}

// writeGrounds writes the report's GroundsFile into dir.
func writeGrounds(dir string, rep *Report) error {
	g := GroundsSummary{Fidelity: rep.Fidelity, Grounds: rep.Grounds, Recommendations: []GroundsChain{}}
	for _, r := range rep.Recommendations {
		g.Recommendations = append(g.Recommendations, GroundsChain{ChainNodes: r.Nodes, Recommended: r.Recommended, Policy: r.Stats.Policy, Withheld: r.Withheld})
	}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, GroundsFile), append(b, '\n'))
}

// ReadGrounds reads a report directory's GroundsFile.
func ReadGrounds(dir string) (GroundsSummary, error) {
	var g GroundsSummary
	b, err := os.ReadFile(filepath.Join(dir, GroundsFile))
	if err != nil {
		return g, err
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return g, fmt.Errorf("%s: %w", GroundsFile, err)
	}
	return g, nil
}

// chains returns f's chain check, nil when f or it is nil.
func (f *Fidelity) chains() *ChainCheck {
	if f == nil {
		return nil
	}
	return f.Chains
}
