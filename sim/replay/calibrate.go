package replay

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/internal/workpool"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// CalibrateOptions configure Calibrate.
type CalibrateOptions struct {
	// From and To are the calibration span, Unix seconds: the months
	// whose jobs' real waits the settings are fitted to. CheckTo ends the
	// check span [To, CheckTo) the fitted profile is judged on (0: the
	// trace's last submission).
	From, To, CheckTo int64
	// Zone is the zone of the months; nil is UTC.
	Zone *time.Location
	// WarmupSec is the simulated time before each month whose jobs are
	// replayed but not scored, so that a month starts with a queue (0:
	// 7 days).
	WarmupSec int64
	// Workers bounds the replays at once; 0 is GOMAXPROCS. The result
	// does not depend on it.
	Workers int
	// Seed orders the months the search samples.
	Seed uint64
	// AllowSkip replays jobs wider than a partition by leaving them out.
	AllowSkip bool
	// NoChains leaves the trace's own chains out: the finalists are then
	// ranked by the wait score alone.
	NoChains bool
	// NoPartitions leaves partitions out of the search (a study whose
	// chains name no partition simulates one pool).
	NoPartitions bool
	// Progress, when not nil, is called after each replay with the
	// replays done and planned.
	Progress func(done, total int)
}

// Score is a wait fidelity as the calibration ranks it.
type Score struct {
	// Jobs compared, their Spearman rank correlation and the share within
	// a factor of 2 (sim.Fidelity's).
	Jobs     int     `json:"jobs"`
	Spearman float64 `json:"wait_spearman"`
	Within2x float64 `json:"within_2x"`
	MAESec   float64 `json:"wait_mae_sec"`
}

// value is what the search maximises: Spearman plus the share within
// 2x, each in [0, 1] (the two figures a center reads).
func (s Score) value() float64 { return s.Spearman + s.Within2x }

// Candidate is one setting of what a trace does not record, applied to
// the base profile (Calibrate's search space).
type Candidate struct {
	// Priority is "base" (the base profile's weights), "fcfs" (age only,
	// uncapped: first come, first served), "fairshare" (fair-share
	// first) or "size" (wide jobs first).
	Priority string `json:"priority"`
	// Backfill is the flavour: conservative, easy or none.
	Backfill string `json:"backfill"`
	// Cancelled is leave or run-zero.
	Cancelled string `json:"cancelled"`
	// InferCapacity and InferDependencies turn the inferences on.
	InferCapacity     bool `json:"infer_capacity"`
	InferDependencies bool `json:"infer_dependencies"`
	// Partitions replays each of the trace's partitions on its own pool
	// sized from the trace.
	Partitions bool `json:"partitions"`
	// UserLimit caps each user's running jobs at the most the trace's
	// users ran at once (userLimit; Maui's and Slurm QOS's MaxJobsPU):
	// 0 keeps the base profile's limit.
	UserLimit int `json:"user_limit,omitempty"`
	// MainInterval is the main pass's cycle in seconds (sim.Config's
	// MainIntervalSec); 0 keeps the base profile's.
	MainInterval int64 `json:"main_interval_sec,omitempty"`
}

func (c Candidate) String() string {
	s := fmt.Sprintf("priority=%s backfill=%s cancelled=%s", c.Priority, c.Backfill, c.Cancelled)
	if c.InferCapacity {
		s += " infer-capacity"
	}
	if c.InferDependencies {
		s += " infer-dependencies"
	}
	if c.Partitions {
		s += " partitions"
	}
	if c.UserLimit > 0 {
		s += fmt.Sprintf(" max-jobs-per-user=%d", c.UserLimit)
	}
	if c.MainInterval > 0 {
		s += fmt.Sprintf(" main-interval=%ds", c.MainInterval)
	}
	return s
}

// Trial is a candidate's score on the months of one rung of the search.
type Trial struct {
	Candidate Candidate `json:"candidate"`
	Rung      int       `json:"rung"`
	Months    int       `json:"months"`
	Score     Score     `json:"score"`
}

// Calibration is what Calibrate found.
type Calibration struct {
	// Profile is the base profile with the best candidate's settings.
	Profile sim.Profile `json:"profile"`
	Best    Candidate   `json:"best"`
	// Base and Fitted are the base and the fitted profile's fidelity on
	// the calibration months, CheckBase and CheckFitted on the check
	// months (not used to fit).
	Base        Score `json:"calibration_base"`
	Fitted      Score `json:"calibration_fitted"`
	CheckBase   Score `json:"check_base"`
	CheckFitted Score `json:"check_fitted"`
	// CalibrationMonths and CheckMonths are the months ("2006-01") of
	// the two spans.
	CalibrationMonths []string `json:"calibration_months"`
	CheckMonths       []string `json:"check_months"`
	// Candidates is the search space's size, Replays the month replays
	// run; Trials every candidate's score per rung.
	Candidates int     `json:"candidates"`
	Replays    int     `json:"replays"`
	Trials     []Trial `json:"trials"`
	// Finalists are the best few candidates by wait score, with their
	// replay of the trace's own chains on the calibration months
	// (chooseByChains); ChainBase and ChainFitted are the base and the
	// fitted profile's on the check months. Nil without chains.
	Finalists   []Finalist           `json:"finalists,omitempty"`
	ChainBase   *analyze.ChainReplay `json:"check_chains_base,omitempty"`
	ChainFitted *analyze.ChainReplay `json:"check_chains_fitted,omitempty"`
}

// Finalist is one of the best candidates by wait score, and its replay
// of the trace's own chains.
type Finalist struct {
	Candidate Candidate           `json:"candidate"`
	Score     Score               `json:"score"`
	Chains    analyze.ChainReplay `json:"chains"`
}

// month is one month of a span: its first and last second (Unix) and
// its name.
type month struct {
	from, to int64
	name     string
}

// months returns the calendar months of [from, to) in loc, cut to it.
func months(from, to int64, loc *time.Location) []month {
	var out []month
	t := time.Unix(from, 0).In(loc)
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
	for start.Unix() < to {
		next := start.AddDate(0, 1, 0)
		if m := (month{from: max(start.Unix(), from), to: min(next.Unix(), to), name: start.Format("2006-01")}); m.from < m.to {
			out = append(out, m)
		}
		start = next
	}
	return out
}

// Calibrate fits to the trace what it does not record (the priority,
// backfill flavour, cancelled-job handling, capacity and dependency
// inference, partitions: the Candidate settings) on the months of
// [o.From, o.To), by successive halving: every candidate replays two
// months (a seeded sample), the best third goes on to twice as many
// months, and so on until one is left or every month is used; each month
// is replayed after o.WarmupSec of the trace before it, and scored on the
// jobs submitted in it (Score: wait Spearman plus the share within 2x).
// It then judges the base profile and the fitted one on the check months
// [o.To, o.CheckTo). Every replay is deterministic, so the result is the
// same for any o.Workers.
func Calibrate(ctx context.Context, in In, o CalibrateOptions) (Calibration, error) {
	if o.Zone == nil {
		o.Zone = time.UTC
	}
	if o.WarmupSec <= 0 {
		o.WarmupSec = 7 * 86400
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	tjobs := in.Jobs
	if tjobs == nil {
		var err error
		if tjobs, err = trace.ReadAllContext(ctx, in.Trace); err != nil {
			return Calibration{}, err
		}
	}
	var last int64
	for i := range tjobs {
		last = max(last, tjobs[i].Submit.Unix())
	}
	if o.CheckTo <= 0 {
		o.CheckTo = last + 1
	}
	cal, check := months(o.From, o.To, o.Zone), months(o.To, o.CheckTo, o.Zone)
	if len(cal) == 0 || o.To <= o.From {
		return Calibration{}, fmt.Errorf("%w: calibrate: the calibration span is empty (want --from before --to)", sim.ErrOverride)
	}
	known := 0
	for i := range tjobs {
		if _, ok := tjobs[i].Wait(); ok {
			known++
		}
	}
	if known == 0 {
		return Calibration{}, fmt.Errorf("%w: calibrate: the trace records no job's start: its waits are unknown, so nothing can be fitted to them", sim.ErrUnfit)
	}
	c := &calibrator{ctx: ctx, in: In{Trace: in.Trace, Jobs: tjobs, Profile: in.Profile}, o: o, cache: map[replayKey]poolWaits{}}
	cands := candidates(in.Profile, tjobs, !o.NoPartitions)
	res := Calibration{Candidates: len(cands)}
	for _, m := range cal {
		res.CalibrationMonths = append(res.CalibrationMonths, m.name)
	}
	for _, m := range check {
		res.CheckMonths = append(res.CheckMonths, m.name)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6d697261))
	order := rng.Perm(len(cal)) // the months, in the order the rungs add them
	alive := make([]int, len(cands))
	for i := range alive {
		alive[i] = i
	}
	planned := 0
	first := min(firstRungMonths, len(cal))
	for n, k := first, len(cands); ; n, k = min(2*n, len(cal)), max(1, (k+2)/3) {
		planned += k * n
		if k == 1 || n == len(cal) {
			break
		}
	}
	planned += 2 * len(check)
	c.total = planned
	var finalist []int // the best few of the last rung that had them, best first
	for rung, n := 0, first; ; rung, n = rung+1, min(2*n, len(cal)) {
		ms := make([]month, n)
		for i := range ms {
			ms[i] = cal[order[i]]
		}
		scores, err := c.score(cands, alive, ms)
		if err != nil {
			return Calibration{}, err
		}
		for k, ci := range alive {
			res.Trials = append(res.Trials, Trial{Candidate: cands[ci], Rung: rung, Months: n, Score: scores[k]})
		}
		rank := make([]int, len(alive))
		for i := range rank {
			rank[i] = i
		}
		// Best first; ties to the earlier candidate (the simpler setting).
		slices.SortStableFunc(rank, func(a, b int) int { return cmp.Compare(scores[b].value(), scores[a].value()) })
		if len(alive) >= finalists || len(finalist) == 0 {
			finalist = finalist[:0]
			for _, k := range rank[:min(finalists, len(rank))] {
				finalist = append(finalist, alive[k])
			}
		}
		if len(alive) == 1 || n == len(cal) {
			best := alive[rank[0]]
			res.Best, res.Fitted = cands[best], scores[rank[0]]
			break
		}
		keep := max(1, (len(alive)+2)/3)
		next := make([]int, keep)
		for i := range next {
			next[i] = alive[rank[i]]
		}
		slices.Sort(next)
		alive = next
	}
	if !o.NoChains {
		if err := c.chooseByChains(cands, finalist, cal, &res); err != nil {
			return Calibration{}, err
		}
	}
	var err error
	if res.Profile, err = apply(in.Profile, res.Best, tjobs); err != nil {
		return Calibration{}, err
	}
	baseCand := Candidate{Priority: "base", Backfill: in.Profile.Config.Backfill.Flavour.String(), Cancelled: in.Profile.Config.Cancelled.String(),
		InferCapacity: in.Profile.InferCapacity != nil, InferDependencies: in.Profile.InferDependencies != nil, Partitions: len(in.Profile.Partitions) > 0}
	all := []Candidate{baseCand, res.Best}
	if s, err := c.score(all, []int{0}, cal); err != nil {
		return Calibration{}, err
	} else {
		res.Base = s[0]
	}
	if len(check) > 0 {
		s, err := c.score(all, []int{0, 1}, check)
		if err != nil {
			return Calibration{}, err
		}
		res.CheckBase, res.CheckFitted = s[0], s[1]
	}
	if err := c.checkChains(&res); err != nil {
		return Calibration{}, err
	}
	res.Replays = c.done
	return res, nil
}

// firstRungMonths is the months every candidate replays: two, so that a
// single odd month does not drop the best setting.
const firstRungMonths = 2

// candidates returns the search space over the base profile: the
// inferences only when the trace has real starts, partitions only when
// its jobs name at least two, each with 1 % of the jobs.
func candidates(base sim.Profile, tjobs []trace.Job, partitions bool) []Candidate {
	parts := map[string]int{}
	for i := range tjobs {
		parts[tjobs[i].Partition]++
	}
	multi := 0
	for _, n := range parts {
		if float64(n) >= 0.01*float64(len(tjobs)) {
			multi++
		}
	}
	bools := func(on bool) []bool {
		if on {
			return []bool{false, true}
		}
		return []bool{false}
	}
	limits := []int{0}
	if l := userLimit(tjobs); l > 0 {
		limits = append(limits, l)
	}
	var out []Candidate
	for _, pr := range []string{"base", "fcfs", "fairshare", "size"} {
		for _, bf := range []string{"conservative", "easy", "none"} {
			for _, cn := range []string{"leave", "run-zero"} {
				for _, ic := range []bool{false, true} {
					for _, id := range []bool{false, true} {
						for _, pt := range bools(partitions && (multi >= 2 || len(base.Partitions) > 0)) {
							for _, ul := range limits {
								for _, mi := range mainIntervals {
									out = append(out, Candidate{Priority: pr, Backfill: bf, Cancelled: cn, InferCapacity: ic, InferDependencies: id,
										Partitions: pt, UserLimit: ul, MainInterval: mi})
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// mainIntervals are the main pass cycles searched (seconds; 0: the base
// profile's): event-driven, every minute, every 5 minutes.
var mainIntervals = []int64{0, 60, 300}

// apply returns base with candidate c's settings.
func apply(base sim.Profile, c Candidate, tjobs []trace.Job) (sim.Profile, error) {
	p := base
	cfg := &p.Config
	switch c.Priority {
	case "base":
	case "fcfs":
		cfg.Priority = sim.Priority{AgeWeight: 1000, MaxAgeSec: 86400, AgeUncapped: true}
	case "fairshare":
		cfg.Priority.AgeWeight, cfg.Priority.SizeWeight, cfg.Priority.FairShareWeight = 1000, 0, 10000
	case "size":
		cfg.Priority.AgeWeight, cfg.Priority.SizeWeight, cfg.Priority.FairShareWeight = 1000, 10000, 1000
	default:
		return p, fmt.Errorf("calibrate: priority %q", c.Priority)
	}
	if cfg.Priority.FairShareWeight > 0 && cfg.Priority.DecayHalfLifeSec == 0 {
		cfg.Priority.DecayHalfLifeSec = 2 * 86400
	}
	if cfg.Priority.AgeWeight > 0 && cfg.Priority.MaxAgeSec == 0 {
		cfg.Priority.MaxAgeSec = 7 * 86400
	}
	switch c.Backfill {
	case "conservative":
		cfg.Backfill.Flavour = sim.BackfillConservative
	case "easy":
		cfg.Backfill.Flavour = sim.BackfillEASY
	case "none":
		cfg.Backfill.Flavour = sim.BackfillNone
	}
	if cfg.Backfill.Flavour != sim.BackfillNone {
		d := sim.DefaultConfig().Backfill
		cfg.Backfill.IntervalSec = cmp.Or(cfg.Backfill.IntervalSec, d.IntervalSec)
		cfg.Backfill.WindowSec = cmp.Or(cfg.Backfill.WindowSec, d.WindowSec)
		cfg.Backfill.ResolutionSec = cmp.Or(cfg.Backfill.ResolutionSec, d.ResolutionSec)
	}
	cfg.Cancelled = sim.CancelLeave
	if c.Cancelled == "run-zero" {
		cfg.Cancelled = sim.CancelRunZero
	}
	p.InferCapacity, p.InferDependencies = nil, nil
	if c.InferCapacity {
		co := base.CapacityOptions(cfg.Nodes)
		co.Nodes = 0
		p.InferCapacity = &co
		cfg.Capacity = nil
	}
	if c.InferDependencies {
		p.InferDependencies = base.DependencyOptions()
	}
	if c.UserLimit > 0 {
		cfg.Limits.MaxJobsPerUser = c.UserLimit
	}
	if c.MainInterval > 0 {
		cfg.MainIntervalSec = c.MainInterval
	}
	p.Partitions = nil
	if c.Partitions {
		if len(base.Partitions) > 0 {
			p.Partitions = base.Partitions
		} else {
			p.Partitions = tracePartitions(tjobs)
		}
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("calibrate: %s: %w", c, err)
	}
	return p, nil
}

// userLimit returns the most jobs one user of the trace ran at once (from
// the recorded starts and ends), 0 when no job has both: a per-user limit
// the trace may have been scheduled under, were it lower than the
// queue's demand.
func userLimit(tjobs []trace.Job) int {
	type change struct {
		at    int64
		delta int
	}
	byUser := map[string][]change{}
	for i := range tjobs {
		j := &tjobs[i]
		if j.StartUnknown || j.Start.IsZero() || j.End.IsZero() || !j.End.After(j.Start) {
			continue
		}
		byUser[j.User] = append(byUser[j.User], change{j.Start.Unix(), 1}, change{j.End.Unix(), -1})
	}
	most := 0
	for _, ch := range byUser {
		slices.SortFunc(ch, func(a, b change) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
		n := 0
		for _, c := range ch {
			n += c.delta
			most = max(most, n)
		}
	}
	return most
}

// tracePartitions returns a partition per partition name of the trace's
// jobs (sorted; the jobs without one in the default partition), each
// sized from the trace.
func tracePartitions(tjobs []trace.Job) []sim.Partition {
	seen := map[string]bool{}
	for i := range tjobs {
		if p := tjobs[i].Partition; p != "" && p != sim.DefaultPartition {
			seen[p] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]sim.Partition, len(names))
	for i, n := range names {
		out[i] = sim.Partition{Name: n}
	}
	return out
}

// calibrator runs and remembers the month replays of a calibration.
type calibrator struct {
	ctx         context.Context
	in          In
	o           CalibrateOptions
	cache       map[replayKey]poolWaits
	done, total int
}

// replayKey is a candidate's replay of one month (a span: a month cut
// by the calibration's bounds is not the whole month).
type replayKey struct {
	c        Candidate
	from, to int64
}

// score returns the score of each candidate cands[alive[k]] over the
// months ms (their compared jobs pooled), replaying what the cache does
// not hold, o.Workers at once.
func (c *calibrator) score(cands []Candidate, alive []int, ms []month) ([]Score, error) {
	type unit struct {
		cand int
		m    month
	}
	var todo []unit
	for _, ci := range alive {
		for _, m := range ms {
			if _, ok := c.cache[replayKey{cands[ci], m.from, m.to}]; !ok {
				todo = append(todo, unit{ci, m})
			}
		}
	}
	out := make([]poolWaits, len(todo))
	errs := workpool.Run(c.ctx, c.o.Workers, len(todo), func(ctx context.Context, u int) error {
		w, err := c.replayMonth(ctx, cands[todo[u].cand], todo[u].m)
		out[u] = w
		return err
	}, func(done, _ int) {
		if c.o.Progress != nil {
			c.o.Progress(c.done+done, c.total)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for u, t := range todo {
		c.cache[replayKey{cands[t.cand], t.m.from, t.m.to}] = out[u]
	}
	c.done += len(todo)
	scores := make([]Score, len(alive))
	for k, ci := range alive {
		var p poolWaits
		for _, m := range ms {
			w := c.cache[replayKey{cands[ci], m.from, m.to}]
			p.actual = append(p.actual, w.actual...)
			p.simulated = append(p.simulated, w.simulated...)
		}
		f := sim.CompareWaits(p.actual, p.simulated, nil)
		scores[k] = Score{Jobs: f.Jobs, Spearman: f.Spearman, Within2x: f.Within2x, MAESec: f.MAESec}
	}
	return scores, nil
}

// replayMonth replays month m under candidate cand, from o.WarmupSec
// before it, and returns the waits of the jobs submitted in it.
func (c *calibrator) replayMonth(ctx context.Context, cand Candidate, m month) (poolWaits, error) {
	prof, err := apply(c.in.Profile, cand, c.in.Jobs)
	if err != nil {
		return poolWaits{}, err
	}
	_, w, err := run(ctx, In{Trace: c.in.Trace, Jobs: c.in.Jobs, Profile: prof},
		Options{From: m.from - c.o.WarmupSec, To: m.to, Zone: c.o.Zone, AllowSkip: c.o.AllowSkip})
	if err != nil {
		return poolWaits{}, fmt.Errorf("calibrate: %s, %s: %w", cand, m.name, err)
	}
	var out poolWaits
	for i, at := range w.submit { // the month's jobs: not the warm-up's
		if at >= m.from && at < m.to {
			out.actual = append(out.actual, w.actual[i])
			out.simulated = append(out.simulated, w.simulated[i])
		}
	}
	return out, nil
}

// Describe writes the calibration as the comment block of a profile file.
func (c Calibration) Describe(trace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Calibrated by mirage sim calibrate on %s: fitted on %s to %s (%d candidate settings, %d month replays),\n",
		trace, c.CalibrationMonths[0], c.CalibrationMonths[len(c.CalibrationMonths)-1], c.Candidates, c.Replays)
	fmt.Fprintf(&b, "# best: %s.\n", c.Best)
	fmt.Fprintf(&b, "# Wait fidelity, calibration months: base Spearman %.3f, within 2x %.1f%% -> fitted %.3f, %.1f%% (%d jobs).\n",
		c.Base.Spearman, 100*c.Base.Within2x, c.Fitted.Spearman, 100*c.Fitted.Within2x, c.Fitted.Jobs)
	if len(c.CheckMonths) > 0 {
		fmt.Fprintf(&b, "# Check months %s to %s (not used to fit): base Spearman %.3f, within 2x %.1f%% -> fitted %.3f, %.1f%% (%d jobs).\n",
			c.CheckMonths[0], c.CheckMonths[len(c.CheckMonths)-1], c.CheckBase.Spearman, 100*c.CheckBase.Within2x,
			c.CheckFitted.Spearman, 100*c.CheckFitted.Within2x, c.CheckFitted.Jobs)
	} else {
		b.WriteString("# No check months after the calibration span: the fit is not checked out of sample.\n")
	}
	switch {
	case len(c.Finalists) > 0 && c.Finalists[0].Chains.Links == 0:
		b.WriteString("# The detector found no service chain (jobs run to their limit and resubmitted) on the calibration months: the chains are not checked.\n")
	case len(c.Finalists) > 0:
		f := c.Finalists
		fmt.Fprintf(&b, "# The trace's own chains on the calibration months (%d links replayed): real interruption %.1f h; simulated reactive of the %d best by waits:",
			f[0].Chains.Links, f[0].Chains.RealH, len(f))
		for _, x := range f {
			fmt.Fprintf(&b, " %.1f h", x.Chains.ReactiveH)
		}
		b.WriteString(" (the chosen: the best by waits within 2x of the real, else the nearest).\n")
	}
	if c.ChainBase != nil && c.ChainFitted != nil && c.ChainFitted.Links > 0 {
		fmt.Fprintf(&b, "# Chains of the check months (%d links): real %.1f h; simulated reactive base %.1f h -> fitted %.1f h.\n",
			c.ChainFitted.Links, c.ChainFitted.RealH, c.ChainBase.ReactiveH, c.ChainFitted.ReactiveH)
	}
	return b.String()
}

// Chain checking: the finalists and what a chain replay must show.
const (
	// finalists is the number of best candidates whose chain replay is
	// checked.
	finalists = 5
	// maxChainRatio is the most a finalist's simulated reactive
	// interruption of the trace's chains may differ from the real one (a
	// factor either way) to be preferred.
	maxChainRatio = 2.0
	// minChainLinks is the fewest replayed links a chain check needs.
	minChainLinks = 10
)

// chainRatio is the larger of real/simulated and simulated/real (+Inf
// when one is 0 and the other not; 1 when both are).
func chainRatio(c analyze.ChainReplay) float64 {
	switch {
	case c.RealH == c.ReactiveH:
		return 1
	case c.RealH == 0 || c.ReactiveH == 0:
		return math.Inf(1)
	}
	return max(c.RealH/c.ReactiveH, c.ReactiveH/c.RealH)
}

// chooseByChains replays the trace's own service chains (analyze's
// detector, those whose head is in the calibration months) under each
// finalist and makes res.Best the finalist with the best wait score
// (over all the calibration months) among those whose simulated reactive
// interruption is within maxChainRatio of the real one, or, when none
// is, the one nearest to it. A trace with fewer than minChainLinks
// replayed links keeps the wait score's choice. It then replays the
// check months' chains under the base and the fitted profile.
func (c *calibrator) chooseByChains(cands []Candidate, finalist []int, cal []month, res *Calibration) error {
	if len(finalist) == 0 {
		return nil
	}
	scores, err := c.score(cands, finalist, cal)
	if err != nil {
		return err
	}
	chains := make([]analyze.ChainReplay, len(finalist))
	errs := workpool.Run(c.ctx, c.o.Workers, len(finalist), func(ctx context.Context, k int) error {
		prof, err := apply(c.in.Profile, cands[finalist[k]], c.in.Jobs)
		if err != nil {
			return err
		}
		chains[k], err = analyze.ReplayChains(ctx, c.in.Jobs, prof, c.o.From, c.o.To, analyze.DefaultOptions())
		return err
	}, nil)
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("calibrate: chains: %w", err)
		}
	}
	for k, ci := range finalist {
		res.Finalists = append(res.Finalists, Finalist{Candidate: cands[ci], Score: scores[k], Chains: chains[k]})
	}
	if chains[0].Links < minChainLinks {
		return nil // too few chains to judge by: the wait score's choice
	}
	best := -1
	for k := range finalist { // best wait score among those within the ratio
		if chainRatio(chains[k]) <= maxChainRatio && (best < 0 || scores[k].value() > scores[best].value()) {
			best = k
		}
	}
	if best < 0 { // none within: the nearest
		best = 0
		for k := range finalist {
			if chainRatio(chains[k]) < chainRatio(chains[best]) {
				best = k
			}
		}
	}
	res.Best, res.Fitted = cands[finalist[best]], scores[best]
	return nil
}

// checkChains replays the check months' chains under the base profile
// and the fitted one (res.Profile).
func (c *calibrator) checkChains(res *Calibration) error {
	if len(res.Finalists) == 0 || c.o.To >= c.o.CheckTo {
		return nil
	}
	profs := []sim.Profile{c.in.Profile, res.Profile}
	out := make([]analyze.ChainReplay, 2)
	for k, p := range profs {
		var err error
		if out[k], err = analyze.ReplayChains(c.ctx, c.in.Jobs, p, c.o.To, c.o.CheckTo, analyze.DefaultOptions()); err != nil {
			return fmt.Errorf("calibrate: check chains: %w", err)
		}
	}
	res.ChainBase, res.ChainFitted = &out[0], &out[1]
	return nil
}
