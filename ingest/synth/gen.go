package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// pcgStream is the second PCG word; the first is Options.Seed.
const pcgStream = 0x6d69726167652d73 // "mirage-s"

// job is one generated job, times in Unix seconds.
type job struct {
	rawID    int64 // JobIDRaw
	arrayID  int64 // array job ID; 0 when not an array task
	task     int64 // array task index
	user     *user
	acct     int32
	name     string
	nameID   int32 // index into population.names
	lim      int32 // index into limitMix
	node     int32 // index into nodeMix
	nnodes   int32 // nodes (capped)
	out      outcome
	exit     string // ExitCode text
	byRoot   bool   // cancelled by UID 0 instead of the owner
	submit   int64
	eligible int64 // valid when eligibleKnown
	start    int64 // valid when started
	end      int64
	priority int64

	eligibleKnown bool
	started       bool
}

// gen produces the jobs of a run in submit (= JobID) order.
type gen struct {
	o      Options
	r      *rand.Rand
	pop    *population
	sched  *nodes
	clock  *clock
	limits alias
	nodes  alias
	outs   alias // runClasses index of started jobs
	exits  alias

	capNodes []int32 // nodeMix sizes capped at Options.Nodes
	left     int     // jobs still to generate
	t0       int64   // Unix seconds of Options.Start

	// Arrival process: bursts at the events of a non-homogeneous Poisson
	// process with rate rate0*week[slot]; thinning with rateMax.
	rate0, rateMax float64
	week           [weekSlots]float64
	clockSec       float64 // time of the last event, seconds after t0
	events         int64

	// Bursts under way, by the submit time of their next job: at high
	// arrival rates (thousands of nodes) they overlap in time.
	active    burstHeap
	spare     []*burst // finished bursts, reused: a run allocates O(1)
	bursts    int64    // bursts started, for ties
	reserved  int      // jobs the active bursts have still to submit
	haveStart bool     // nextStart holds the next burst's start
	nextStart int64

	nextID     int64
	lastSubmit int64

	stats Stats
}

func newGen(o Options) (*gen, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, err
	}
	g := &gen{
		o:      o,
		r:      rand.New(rand.NewPCG(o.Seed, pcgStream)),
		clock:  newClock(o.Location),
		limits: limitAlias(),
		nodes:  nodeAlias(),
		left:   o.Jobs,
		t0:     o.Start.Unix(),
	}
	g.pop = newPopulation(g.r)
	g.sched = newNodes(o.Nodes, g.t0)
	w := make([]float64, len(runClasses))
	for i, c := range runClasses {
		w[i] = c.prob
	}
	g.outs = newAlias(w)
	w = w[:0]
	for _, e := range failExits {
		w = append(w, e.weight)
	}
	g.exits = newAlias(w)
	for _, n := range nodeMix {
		g.capNodes = append(g.capNodes, min(n.nodes, int32(o.Nodes)))
	}
	jobRate := o.Utilisation * float64(o.Nodes) / g.pop.meanNodeSeconds(int32(o.Nodes)) // jobs per second
	g.rate0 = jobRate / meanBurst()
	g.rateMax = g.rate0 * buildWeek(&g.week)
	// With a backlog the last job ends about max(1, Utilisation) times the
	// submit span after Start.
	if span := float64(o.Jobs) / jobRate; float64(g.t0)+1.5*max(1, o.Utilisation)*span+30*86400 > maxUnix {
		return nil, fmt.Errorf("%w: %d jobs on %d nodes would run past the year 9999", ErrInvalidOptions, o.Jobs, o.Nodes)
	}
	g.nextID = 1000 + int64(g.r.IntN(9000))
	return g, nil
}

// maxUnix is 9999-12-31T00:00:00Z, the last time sacct's format can hold.
const maxUnix = 253402214400

// weekSlots is the resolution of the arrival cycle: 10-minute slots of a
// week in local time, Monday 00:00 first.
const weekSlots = 7 * 24 * 6

// buildWeek fills the relative arrival rate of each slot, normalised to a
// mean of 1, and returns its maximum. The day follows
// 1 + 0.6 cos(2 pi (h - 15) / 24), peaking at 15:00; weekdays weigh more
// than weekends.
func buildWeek(week *[weekSlots]float64) float64 {
	day := [7]float64{1.1, 1.15, 1.15, 1.1, 1.0, 0.65, 0.75} // Monday first
	var sum float64
	for i := range week {
		h := (float64(i%144) + 0.5) / 6
		week[i] = day[i/144] * (1 + 0.6*math.Cos(2*math.Pi*(h-15)/24))
		sum += week[i]
	}
	var mx float64
	for i := range week {
		week[i] /= sum / weekSlots
		mx = max(mx, week[i])
	}
	return mx
}

// slot returns the week slot of Unix time u in local time.
func (g *gen) slot(u int64) int {
	civ := g.clock.civil(u)
	day := floorDiv(civ, 86400)
	wd := (day + 3) % 7 // 1970-01-01 was a Thursday
	if wd < 0 {
		wd += 7
	}
	return int(wd)*144 + int(civ-day*86400)/600
}

// nextEvent advances the arrival clock to the next burst (thinning).
func (g *gen) nextEvent() {
	if g.events == 0 {
		g.events++
		return // the first burst is submitted at Options.Start
	}
	g.events++
	for {
		g.clockSec += g.r.ExpFloat64() / g.rateMax
		u := g.t0 + int64(g.clockSec)
		if g.r.Float64()*g.rateMax < g.rate0*g.week[g.slot(u)] {
			return
		}
	}
}

// burst is a run of jobs of one user: an array (one submit time) or
// jobs submitted 1 + Exp(burstGapMeanSec) seconds apart.
type burst struct {
	seq     int64 // start order, for ties
	left    int   // jobs still to submit
	tasks   int
	user    *user
	isArray bool
	tpl     job   // parameters of the next job
	submit  int64 // the next job's submit time
}

// burstHeap orders bursts by their next submit time, then start order.
type burstHeap []*burst

func (h burstHeap) before(i, j int) bool {
	if h[i].submit != h[j].submit {
		return h[i].submit < h[j].submit
	}
	return h[i].seq < h[j].seq
}

func (h *burstHeap) push(b *burst) {
	*h = append(*h, b)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.before(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

// fix restores the order after the first burst's submit time grew, or
// removes it when it has no job left and returns it.
func (h *burstHeap) fix() (done *burst) {
	a := *h
	if a[0].left == 0 {
		done = a[0]
		a[0] = a[len(a)-1]
		a = a[:len(a)-1]
		*h = a
	}
	for i, n := 0, len(a); ; {
		l := 2*i + 1
		if l >= n {
			return done
		}
		m := l
		if r := l + 1; r < n && a.before(r, l) {
			m = r
		}
		if !a.before(m, i) {
			return done
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}

// newBurst starts a burst at start (Unix seconds) with at most limit
// jobs.
func (g *gen) newBurst(start int64, limit int) *burst {
	var b *burst
	if n := len(g.spare); n > 0 {
		b, g.spare = g.spare[n-1], g.spare[:n-1]
		*b = burst{}
	} else {
		b = new(burst)
	}
	b.seq, b.submit, b.user = g.bursts, start, &g.pop.users[g.pop.pick.draw(g.r)]
	g.bursts++
	var k int
	b.isArray = g.r.Float64() < pArray
	switch {
	case b.isArray:
		k = 2 + g.r.IntN(arrayMaxTasks-1)
	case g.r.Float64() < pSingle:
		k = 1
	default:
		k = 2 + int(min(g.r.ExpFloat64()*burstExtraMean, maxBurst))
	}
	k = min(k, limit)
	b.left, b.tasks = k, k
	if b.isArray {
		b.tpl.arrayID = g.nextID
		g.nextID += int64(k)
	}
	g.draw(&b.tpl, b.user)
	if b.isArray {
		b.tpl.node, b.tpl.nnodes = 0, g.capNodes[0] // nodeMix[0] is one node
	}
	return b
}

// draw sets the user-chosen parameters of j.
func (g *gen) draw(j *job, u *user) {
	r := g.r
	j.user = u
	j.acct = u.acct[0]
	if r.Float64() < pUseSecond {
		j.acct = u.acct[1]
	}
	k := 1
	if r.Float64() < pFirstName {
		k = 0
	}
	j.name, j.nameID = u.names[k], u.nameID[k]
	if r.Float64() < pStickLimit {
		j.lim = u.prefLim
	} else {
		j.lim = int32(g.limits.draw(r))
	}
	if r.Float64() < pStickNodes {
		j.node = u.prefNode
	} else {
		j.node = int32(g.nodes.draw(r))
	}
	j.nnodes = g.capNodes[j.node]
}

// next generates the next job into j; it must not be called more than
// Options.Jobs times.
func (g *gen) next(j *job) {
	if !g.haveStart && g.left > g.reserved {
		g.nextEvent()
		g.nextStart, g.haveStart = g.t0+int64(g.clockSec), true
	}
	if g.haveStart && g.left > g.reserved && (len(g.active) == 0 || g.nextStart < g.active[0].submit) {
		b := g.newBurst(g.nextStart, g.left-g.reserved)
		g.reserved += b.left
		g.active.push(b)
		g.haveStart = false
	}
	b := g.active[0]
	*j = b.tpl
	j.submit = b.submit
	g.left--
	g.reserved--
	b.left--
	if b.isArray {
		j.task = int64(b.tasks - b.left - 1)
		j.rawID = j.arrayID + 1 + j.task
		if b.left == 0 { // Slurm gives the last task the array's own ID
			j.rawID = j.arrayID
		}
	} else {
		j.task = 0
		j.rawID = g.nextID
		g.nextID += 1 + int64(g.r.Uint64()&3)
		if b.left > 0 { // the burst's next job
			b.submit += 1 + int64(g.r.ExpFloat64()*burstGapMeanSec)
			if g.r.Float64() >= pRepeat {
				g.draw(&b.tpl, b.user)
			}
		}
	}
	if done := g.active.fix(); done != nil {
		g.spare = append(g.spare, done)
	}
	g.lastSubmit = j.submit
	j.priority = 1001 + j.user.prioBase + 20*int64(j.nnodes) + int64(g.r.Uint64()&255)
	if g.r.Float64() < pCancelPending {
		g.cancelPending(j)
	} else {
		g.run(j)
	}
	g.count(j)
}

// lognormal returns exp(N(ln median, sigma^2)).
func (g *gen) lognormal(median, sigma float64) float64 {
	return median * math.Exp(sigma*g.r.NormFloat64())
}

// cancelPending makes j a job cancelled before it started.
func (g *gen) cancelPending(j *job) {
	j.out, j.exit, j.started = outCancelledPending, "0:0", false
	j.byRoot = g.r.Float64() < pCancelByRoot
	d := int64(min(g.lognormal(cancelDelayMedianSec, cancelDelaySigma), maxCancelDelaySec))
	j.eligible, j.eligibleKnown = j.submit, true
	if g.r.Float64() < pDependencyHeld {
		j.eligibleKnown = false
	} else if s := g.sched.earliest(int(j.nnodes), j.submit); s <= j.submit+d {
		// It would have started: cancel it before it could, or, with no
		// wait at all, make it one that was never eligible.
		if s > j.submit {
			d = int64(g.r.Float64() * float64(s-j.submit))
		} else {
			j.eligibleKnown = false
		}
	}
	j.end = j.submit + d
}

// run schedules j, which starts.
func (g *gen) run(j *job) {
	r := g.r
	j.started = true
	j.byRoot = false
	class := g.outs.draw(r)
	j.out = runClasses[class].out
	lim := limitMix[j.lim].min * 60
	var run int64
	switch j.out {
	case outTimeout:
		run = lim + 1 + int64(min(r.ExpFloat64()*overrunMeanSec, maxOverrunSec-1))
	default:
		mu, sigma := logMedian[class], runClasses[class].sigma
		var x float64
		for {
			if y := mu + sigma*r.NormFloat64(); y < 0 {
				x = y
				break
			}
		}
		run = max(1, int64(math.Exp(x)*float64(lim)))
	}
	switch j.out {
	case outCompleted, outTimeout, outNodeFail:
		j.exit = "0:0"
	case outFailed:
		j.exit = failExits[g.exits.draw(r)].text
	case outOutOfMemory:
		j.exit = "0:125"
	case outCancelledRunning:
		j.exit = "0:15"
		j.byRoot = r.Float64() < pCancelByRoot
	}
	j.eligible, j.eligibleKnown = j.submit, true
	if r.Float64() < pHeld {
		j.eligible += 1 + int64(r.ExpFloat64()*heldMeanSec)
	}
	ready := j.eligible
	if r.Float64() < pLatency {
		ready += int64(r.ExpFloat64() * schedLatencyMeanSec)
	}
	j.start = g.sched.place(int(j.nnodes), ready, run)
	j.end = j.start + run
}

// count adds j to the statistics.
func (g *gen) count(j *job) {
	s := &g.stats
	s.Jobs++
	if j.arrayID != 0 {
		s.ArrayTasks++
	}
	switch j.out {
	case outCompleted:
		s.Completed++
	case outFailed:
		s.Failed++
	case outOutOfMemory:
		s.OutOfMemory++
	case outCancelledRunning:
		s.CancelledRunning++
	case outNodeFail:
		s.NodeFail++
	case outTimeout:
		s.Timeouts++
	case outCancelledPending:
		s.CancelledPending++
	}
	if s.Jobs == 1 {
		s.firstSubmit = j.submit
	}
	s.lastSubmit = j.submit
	s.lastEnd = max(s.lastEnd, j.end)
	if j.started {
		s.Started++
		s.busyEnd = max(s.busyEnd, j.end)
		s.BusyNodeSec += int64(j.nnodes) * (j.end - j.start)
		s.WaitSec += j.start - j.submit
	}
}
