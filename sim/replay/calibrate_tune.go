package replay

import (
	"slices"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// The coordinate search after the grid (tune).
const (
	// tuneMonths is the most calibration months (the first of the
	// seeded order, which the grid's later rungs all scored) the
	// coordinate search scores each neighbour on.
	tuneMonths = 8
	// tunePasses is the most passes over the settings; a pass that
	// moves none ends the search.
	tunePasses = 2
	// tuneMinGain is the least gain in value a move needs.
	tuneMinGain = 1e-3
)

// dim is one continuous setting of the coordinate search: the
// candidates that differ from the current one in it alone, one a level.
type dim struct {
	name   string
	levels []Candidate
}

// dimNames are the settings in the order a pass perturbs them.
var dimNames = []string{"age-weight", "fairshare-weight", "size-weight", "max-age", "half-life",
	"bf-window", "bf-max-job-test", "capacity-bucket", "capacity-smooth", "capacity-min-pending"}

// weightLevels are the levels a multifactor weight w is tried at: 0, a
// quarter and four times it, or, for a weight at 0, 1000 and 10000 (the
// base profile's weights are in the thousands).
func weightLevels(w float64) []float64 {
	if w == 0 {
		return []float64{1000, 10000}
	}
	return []float64{0, w / 4, 4 * w}
}

// dims returns the settings that apply to cand (the multifactor weights
// and age cap unless its priority is FCFS, the half-life with a
// fair-share weight, the backfill window and test limit with backfill,
// the capacity inference's settings with it) and their levels, leaving
// out a level equal to cand's own.
func dims(base sim.Profile, cand Candidate, tjobs []trace.Job) ([]dim, error) {
	p, err := apply(base, cand, tjobs)
	if err != nil {
		return nil, err
	}
	pr, bf := p.Config.Priority, p.Config.Backfill
	var out []dim
	add := func(name string, cur int64, levels []int64, set func(*Tuning, int64)) {
		d := dim{name: name}
		for _, v := range levels {
			if v == cur {
				continue
			}
			c := cand
			set(&c.Tune, v)
			d.levels = append(d.levels, c)
		}
		out = append(out, d)
	}
	if !pr.AgeUncapped {
		w := [3]float64{pr.AgeWeight, pr.FairShareWeight, pr.SizeWeight}
		for i, name := range dimNames[:3] {
			d := dim{name: name}
			for _, v := range weightLevels(w[i]) {
				nw := w
				nw[i] = v
				if nw == [3]float64{} {
					continue
				}
				c := cand
				c.Tune.Reweighted, c.Tune.AgeWeight, c.Tune.FairShareWeight, c.Tune.SizeWeight = true, nw[0], nw[1], nw[2]
				d.levels = append(d.levels, c)
			}
			out = append(out, d)
		}
		if pr.AgeWeight > 0 {
			add("max-age", pr.MaxAgeSec, []int64{86400, 3 * 86400, 14 * 86400}, func(t *Tuning, v int64) { t.MaxAgeSec = v })
		}
	}
	if pr.FairShareWeight > 0 {
		add("half-life", pr.DecayHalfLifeSec, []int64{86400, 7 * 86400, 14 * 86400}, func(t *Tuning, v int64) { t.HalfLifeSec = v })
	}
	if bf.Flavour != sim.BackfillNone {
		add("bf-window", bf.WindowSec, []int64{6 * 3600, 86400, 7 * 86400}, func(t *Tuning, v int64) { t.BackfillWindowSec = v })
		add("bf-max-job-test", noneIfZero(int64(bf.MaxJobTest)), []int64{100, 1000, -1}, func(t *Tuning, v int64) { t.BackfillMaxJobTest = int(v) })
	}
	if co := p.InferCapacity; co != nil {
		add("capacity-bucket", cmpOr(co.BucketSec, sim.DefaultCapacityBucketSec), []int64{6 * 3600, 7 * 86400}, func(t *Tuning, v int64) { t.CapacityBucketSec = v })
		add("capacity-smooth", noneIfZero(int64(co.Smooth)), []int64{-1, 1, 3}, func(t *Tuning, v int64) { t.CapacitySmooth = int(v) })
		add("capacity-min-pending", noneIfZero(co.MinPendingSec), []int64{-1, 1800, 7200}, func(t *Tuning, v int64) { t.CapacityMinPendingSec = v })
	}
	return out, nil
}

// noneIfZero maps the simulator's 0 (none, all) to the tuning's -1.
func noneIfZero(v int64) int64 {
	if v == 0 {
		return -1
	}
	return v
}

func cmpOr(v, d int64) int64 {
	if v == 0 {
		return d
	}
	return v
}

// tune is a coordinate search from cand on the months ms: setting by
// setting (dimNames), it scores cand's neighbours (dims, o.Workers at
// once) with their chains and moves to the best when it gains at least
// tuneMinGain, for at most tunePasses passes. It returns where it ended
// and that candidate's score, and appends every neighbour's score to
// res.Tuning (Rung: the pass).
func (c *calibrator) tune(cand Candidate, ms []month, res *Calibration) (Candidate, Score, error) {
	s, err := c.score([]Candidate{cand}, []int{0}, ms, true)
	if err != nil {
		return cand, Score{}, err
	}
	cur := s[0]
	for pass := range tunePasses {
		moved := false
		for _, name := range dimNames {
			ds, err := dims(c.in.Profile, cand, c.in.Jobs)
			if err != nil {
				return cand, cur, err
			}
			k := slices.IndexFunc(ds, func(d dim) bool { return d.name == name })
			if k < 0 || len(ds[k].levels) == 0 {
				continue
			}
			levels := ds[k].levels
			idx := make([]int, len(levels))
			for i := range idx {
				idx[i] = i
			}
			scores, err := c.score(levels, idx, ms, true)
			if err != nil {
				return cand, cur, err
			}
			best := -1
			for i, sc := range scores {
				res.Tuning = append(res.Tuning, Trial{Candidate: levels[i], Rung: pass, Months: len(ms), Score: sc})
				if sc.Value >= cur.Value+tuneMinGain && (best < 0 || sc.Value > scores[best].Value) {
					best = i
				}
			}
			if best >= 0 {
				cand, cur, moved = levels[best], scores[best], true
			}
		}
		if !moved {
			break
		}
	}
	return cand, cur, nil
}
