package replay

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
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
	// NoChains leaves the trace's own chains out of the objective: the
	// candidates are then ranked by the wait score alone.
	NoChains bool
	// NoTune leaves out the coordinate search of the continuous settings
	// (Tuning) after the grid.
	NoTune bool
	// Candidates, when not nil, is the search space instead of the grid
	// (candidates).
	Candidates []Candidate
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
	// Chains is the replay of the trace's chains whose heads are in the
	// scored months (pooled), when the score counts them.
	Chains *analyze.ChainReplay `json:"chains,omitempty"`
	// Value is what the search maximises (Score.value).
	Value float64 `json:"value"`
}

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
	// Tune is the continuous settings the coordinate search found on
	// top of the grid's (zero: none changed).
	Tune Tuning `json:"tune,omitzero"`
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
	return s + c.Tune.String()
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
	// Tuning is every neighbour's score in the coordinate search (Rung:
	// its pass) on TuneMonths months; Grid is the best grid candidate
	// (Best without the tuning) and GridFitted its score on the
	// calibration months.
	Tuning     []Trial   `json:"tuning,omitempty"`
	TuneMonths int       `json:"tune_months,omitempty"`
	Grid       Candidate `json:"grid_best"`
	GridFitted Score     `json:"grid_fitted"`
	// ChainWeight is the objective's weight of the chains' error
	// (ChainWeight; 0 without chains), ChainReplays the month chain
	// replays run.
	ChainWeight  float64 `json:"chain_weight"`
	ChainReplays int     `json:"chain_replays"`
	// Finalists are the best few candidates of the search, scored with
	// the trace's own chains on every calibration month (the best of
	// them by value is the grid's choice); ChainBase and ChainFitted are
	// the base and the fitted profile's chains on the check months. Nil
	// without chains.
	Finalists   []Finalist           `json:"finalists,omitempty"`
	ChainBase   *analyze.ChainReplay `json:"check_chains_base,omitempty"`
	ChainFitted *analyze.ChainReplay `json:"check_chains_fitted,omitempty"`
}

// Finalist is one of the best candidates of the search, its score on
// every calibration month and its replay of the trace's own chains.
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
// inference, partitions, a per-user limit, the main cycle: the Candidate
// settings) on the months of [o.From, o.To), by successive halving:
// every candidate replays two months (a seeded sample), the best third
// goes on to twice as many months, and so on until one is left or every
// month is used; each month is replayed after o.WarmupSec of the trace
// before it, and scored on the jobs submitted in it (Score: wait
// Spearman plus the share within 2x). On rungs of at most chainRungMax
// candidates the score also counts the trace's own service chains whose
// heads are in the same months (detected once, replayed reactively
// under each candidate), less ChainWeight times their error; the best
// finalists are then scored so on every calibration month, and the best
// of them is the grid's choice. A coordinate search (tune) then perturbs
// its continuous settings (Tuning: the multifactor weights, age cap,
// fair-share half-life, backfill window and test limit, capacity
// inference), kept only when it scores higher on every calibration
// month. It then judges the base profile and the fitted one on the check
// months [o.To, o.CheckTo). Every replay is deterministic, so the result
// is the same for any o.Workers.
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
	if !o.NoChains {
		if err := c.detectChains(); err != nil {
			return Calibration{}, err
		}
	}
	cands := o.Candidates
	if cands == nil {
		cands = candidates(in.Profile, tjobs, !o.NoPartitions)
	}
	if len(cands) == 0 {
		return Calibration{}, fmt.Errorf("%w: calibrate: no candidate setting", sim.ErrOverride)
	}
	res := Calibration{Candidates: len(cands)}
	if c.chains != nil {
		res.ChainWeight = ChainWeight
	}
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
	first := min(firstRungMonths, len(cal))
	for n, k := first, len(cands); ; n, k = min(2*n, len(cal)), max(1, (k+2)/3) {
		c.total += k * n
		if k == 1 || n == len(cal) {
			break
		}
	}
	c.total += 2 * len(check)
	var finalist []int // the best few of the last rung that had them, best first
	for rung, n := 0, first; ; rung, n = rung+1, min(2*n, len(cal)) {
		ms := make([]month, n)
		for i := range ms {
			ms[i] = cal[order[i]]
		}
		scores, err := c.score(cands, alive, ms, len(alive) <= chainRungMax)
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
		slices.SortStableFunc(rank, func(a, b int) int { return cmp.Compare(scores[b].Value, scores[a].Value) })
		if len(alive) >= finalists || len(finalist) == 0 {
			finalist = finalist[:0]
			for _, k := range rank[:min(finalists, len(rank))] {
				finalist = append(finalist, alive[k])
			}
		}
		if len(alive) == 1 || n == len(cal) {
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
	if err := c.choose(cands, finalist, cal, &res); err != nil {
		return Calibration{}, err
	}
	if !o.NoTune {
		if err := c.tuneBest(cal, order, &res); err != nil {
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
	if s, err := c.score(all, []int{0}, cal, true); err != nil {
		return Calibration{}, err
	} else {
		res.Base = s[0]
	}
	if len(check) > 0 {
		s, err := c.score(all, []int{0, 1}, check, false)
		if err != nil {
			return Calibration{}, err
		}
		res.CheckBase, res.CheckFitted = s[0], s[1]
	}
	if err := c.checkChains(&res); err != nil {
		return Calibration{}, err
	}
	res.Replays, res.ChainReplays = c.done, c.chainsDone
	return res, nil
}

// choose scores the finalists (best first) on every calibration month,
// with their chains, and makes the best by value (ties to the earlier)
// res.Best and res.Grid.
func (c *calibrator) choose(cands []Candidate, finalist []int, cal []month, res *Calibration) error {
	scores, err := c.score(cands, finalist, cal, true)
	if err != nil {
		return err
	}
	best := 0
	for k, s := range scores {
		if s.Value > scores[best].Value {
			best = k
		}
		if s.Chains != nil {
			res.Finalists = append(res.Finalists, Finalist{Candidate: cands[finalist[k]], Score: s, Chains: *s.Chains})
		}
	}
	res.Best, res.Fitted = cands[finalist[best]], scores[best]
	res.Grid, res.GridFitted = res.Best, res.Fitted
	return nil
}

// tuneBest runs the coordinate search from res.Best on the first
// tuneMonths months of the seeded order and keeps where it ends when
// that scores higher on every calibration month.
func (c *calibrator) tuneBest(cal []month, order []int, res *Calibration) error {
	ms := make([]month, min(tuneMonths, len(cal)))
	for i := range ms {
		ms[i] = cal[order[i]]
	}
	res.TuneMonths = len(ms)
	tuned, _, err := c.tune(res.Best, ms, res)
	if err != nil || tuned == res.Best {
		return err
	}
	s, err := c.score([]Candidate{tuned}, []int{0}, cal, true)
	if err != nil {
		return err
	}
	if s[0].Value > res.Fitted.Value {
		res.Best, res.Fitted = tuned, s[0]
	}
	return nil
}
