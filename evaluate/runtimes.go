package evaluate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// RunTimes is a run-time model's view of the simulator's jobs: each job's
// distribution of run time over limit (jobruntime.Model.Distribution,
// from what is known at its submission) and its median in seconds. It is
// read-only once built and safe for concurrent use.
type RunTimes struct {
	// Dir is the run-time model's directory.
	Dir   string
	edges []float64
	nb    int
	pmf   []float32 // len(sim jobs) x nb, row-major
	ok    []bool
	// MedianSec is every simulator job's predicted median run time,
	// seconds (the model's ratio median times the job's LimitSec), indexed
	// by JobID; 0 when the model cannot predict the job (plan with its
	// limit).
	MedianSec []int64
}

// NewRunTimes predicts the run times of the simulator jobs sjobs
// (sim.FromTrace of tjobs; matched by Name = trace JobID) with the model
// in dir. With oof, jobs of the model's training period get target
// encodings fitted out of fold (jobruntime.Model.DistributionOOF), for
// replays of training windows.
func NewRunTimes(dir string, tjobs []trace.Job, sjobs []sim.Job, oof bool) (*RunTimes, error) {
	m, err := jobruntime.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("run-time model: %w", err)
	}
	var pmf []float32
	var ok []bool
	if oof {
		pmf, ok = m.DistributionOOF(tjobs, 0)
	} else {
		pmf, ok = m.Distribution(tjobs)
	}
	byName := make(map[string]int, len(tjobs))
	for i := range tjobs {
		if _, dup := byName[tjobs[i].JobID]; !dup {
			byName[tjobs[i].JobID] = i
		}
	}
	edges := m.Manifest.Edges
	nb := len(edges) - 1
	rt := &RunTimes{Dir: dir, edges: edges, nb: nb, pmf: make([]float32, len(sjobs)*nb), ok: make([]bool, len(sjobs)),
		MedianSec: make([]int64, len(sjobs))}
	for id := range sjobs {
		i, found := byName[sjobs[id].Name]
		if !found || !ok[i] {
			continue
		}
		p := rt.pmf[id*nb : (id+1)*nb]
		copy(p, pmf[i*nb:(i+1)*nb])
		rt.ok[id] = true
		rt.MedianSec[id] = jobruntime.MedianSec(edges, p, sjobs[id].LimitSec)
	}
	return rt, nil
}

// Draw returns a run time for job id of limit limitSec that has run
// elapsedSec so far (0 when not started), seconds in [elapsedSec,
// limitSec]: a draw from the model's ratio distribution conditioned on
// ratio ≥ elapsed/limit (inverse CDF: u uniform on [F(elapsed/limit), 1];
// uniform on [elapsed, limit] when the model leaves no mass there). A job
// the model cannot predict runs to its limit.
func (rt *RunTimes) Draw(rng *rand.Rand, id sim.JobID, elapsedSec, limitSec int64) int64 {
	return rt.At(rng.Float64(), id, elapsedSec, limitSec)
}

// At is Draw at the given uniform u in [0, 1): the u-quantile of the
// conditioned distribution.
func (rt *RunTimes) At(u float64, id sim.JobID, elapsedSec, limitSec int64) int64 {
	elapsedSec = min(max(elapsedSec, 0), limitSec)
	if int(id) >= len(rt.ok) || !rt.ok[id] || limitSec <= 0 {
		return limitSec
	}
	p := rt.pmf[int(id)*rt.nb : (int(id)+1)*rt.nb]
	r0 := float64(elapsedSec) / float64(limitSec)
	f0 := 0.0
	if r0 > 0 {
		f0 = jobruntime.CDFAt(rt.edges, p, r0)
	}
	var ratio float64
	if f0 >= 1-1e-9 {
		ratio = r0 + u*(1-r0)
	} else {
		ratio = max(jobruntime.Quantile(rt.edges, p, f0+u*(1-f0)), r0)
	}
	run := int64(math.Ceil(ratio * float64(limitSec)))
	return min(max(run, elapsedSec), limitSec)
}

// Local returns rt re-indexed by a window's job IDs: job k of the window
// is job idx[k] of the jobs rt was built for (sim.NewWindow's index,
// features.Timeline.JobIndex). Jobs beyond idx (P, Q, later submissions)
// have no prediction: they run, and are planned, with their limits.
func (rt *RunTimes) Local(idx []int) *RunTimes {
	l := &RunTimes{Dir: rt.Dir, edges: rt.edges, nb: rt.nb, pmf: make([]float32, len(idx)*rt.nb),
		ok: make([]bool, len(idx)), MedianSec: features.Local(rt.MedianSec, idx)}
	for k, i := range idx {
		if i < len(rt.ok) && rt.ok[i] {
			l.ok[k] = true
			copy(l.pmf[k*rt.nb:(k+1)*rt.nb], rt.pmf[i*rt.nb:(i+1)*rt.nb])
		}
	}
	return l
}
