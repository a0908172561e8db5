package synth

import "math"

// The distributions below are the model of doc.go. Weights are relative;
// the comments give the LS6 A100 figures (artifact section 10) they imitate.

// limitMix is the time-limit mix in minutes (section 10.3: p10 30, p25 60,
// median 300, p75 2160, p90 2880; 2880 is 23.8 % of jobs).
var limitMix = []struct {
	min    int64
	weight float64
}{
	{5, 1.0}, {10, 3.0}, {15, 1.5}, {20, 1.0}, {30, 9.9}, {45, 1.5}, {60, 8.4},
	{90, 5.4}, {120, 8.3}, {180, 3.0}, {240, 3.0}, {300, 4.5}, {360, 2.4},
	{480, 3.5}, {600, 2.5}, {720, 3.0}, {900, 1.0}, {960, 1.5}, {1200, 1.2}, {1440, 6.6},
	{1800, 1.0}, {2160, 2.7}, {2400, 0.3}, {2880, 23.8}, {7200, 0.02},
}

// nodeMix is the node-count mix (section 10.2: 79.5 % one node).
var nodeMix = []struct {
	nodes  int32
	weight float64
}{
	{1, 79.5}, {2, 7.2}, {3, 3.4}, {4, 7.2}, {6, 0.3}, {8, 0.75}, {12, 0.35},
	{16, 1.1}, {32, 0.05}, {64, 0.016},
}

// outcome is how a job ends.
type outcome uint8

const (
	outCompleted outcome = iota
	outFailed
	outOutOfMemory
	outCancelledRunning
	outNodeFail
	outTimeout
	outCancelledPending // never started
	numOutcomes
)

// runClasses are the ways a started job can run: the outcome, its
// probability, and the run time as a share r of the time limit,
// log-normal with the given median and sigma, truncated to r < 1. TIMEOUT
// jobs run the whole limit plus an overrun (see overrunMeanSec). Completed
// jobs mix short runs (tests, quick analyses) and production runs that use
// much of their limit (section 10.5: run/limit median 0.05, p75 0.556).
var runClasses = []runClass{
	{outCompleted, 0.35, 0.01, 2.0},
	{outCompleted, 0.287, 0.5, 0.6},
	{outFailed, 0.12, 0.003, 2.5},
	{outOutOfMemory, 0.01, 0.02, 2.0},
	{outCancelledRunning, 0.05, 0.15, 1.5},
	{outNodeFail, 0.003, 0.2, 1.5},
	{outTimeout, 0.18, 1, 0},
}

type runClass struct {
	out                 outcome
	prob, median, sigma float64
}

// logMedian is math.Log of each runClasses median.
var logMedian = func() []float64 {
	l := make([]float64, len(runClasses))
	for i, c := range runClasses {
		l[i] = math.Log(c.median)
	}
	return l
}()

// Job-level probabilities.
const (
	// pCancelPending is the share of jobs cancelled while pending
	// (section 10.7: 13.4 % zero-length jobs).
	pCancelPending = 0.13
	// pDependencyHeld is the share of pending-cancelled jobs that were
	// never eligible (a dependency never satisfied; Eligible Unknown).
	pDependencyHeld = 0.4
	// cancelDelayMedianSec and cancelDelaySigma give the log-normal time
	// from submit to cancel, at most maxCancelDelaySec (section 10.7:
	// median 0.069 h, p90 3.7 h, max 51.4 h).
	cancelDelayMedianSec = 240
	cancelDelaySigma     = 2.5
	maxCancelDelaySec    = 3 * 86400
	// pHeld is the share of started jobs with a dependency or begin time:
	// Eligible = Submit + an exponential delay of heldMeanSec.
	pHeld       = 0.04
	heldMeanSec = 1800
	// overrunMeanSec is the mean of the exponential part of the time a
	// TIMEOUT job runs past its limit (section 10.6: median 7 s, p90 25 s);
	// overruns are 1 + floor(Exp), at most maxOverrunSec.
	overrunMeanSec = 8
	maxOverrunSec  = 60
	// pLatency is the share of jobs that start schedLatencyMeanSec (mean
	// of an exponential, in whole seconds) after they could, as Slurm's
	// scheduling cycle adds (section 10.4: 19 % start at once, 54 % within
	// a minute).
	pLatency            = 0.8
	schedLatencyMeanSec = 15
	// pCancelByRoot is the share of cancellations by UID 0 (an admin)
	// rather than the job's owner.
	pCancelByRoot = 0.05
)

// Burst model: each arrival of the Poisson process is one user submitting
// a burst of jobs.
const (
	// pArray is the share of bursts that are one job array of
	// 2..arrayMaxTasks one-node tasks with a common Submit.
	pArray        = 0.01
	arrayMaxTasks = 20
	// pSingle is the share of other bursts with one job; the rest have
	// 2 + floor(Exp(burstExtraMean)) jobs (at most maxBurst), each
	// submitted 1 + floor(Exp(burstGapMeanSec)) seconds after the previous.
	pSingle         = 0.6
	burstExtraMean  = 3.0
	maxBurst        = 100
	burstGapMeanSec = 15.0
	// pRepeat is the chance that a job of a burst repeats the time limit,
	// size, name, account and memory of the burst's first job.
	pRepeat = 0.85
)

// User population: Zipf-like activity (p(k) ~ (k+zipfV)^-zipfS over the
// Users ranks), per-user preferences.
const (
	zipfS = 1.1
	zipfV = 3.0
	// pStickLimit (pStickNodes) is the chance that a job uses its user's
	// preferred time limit (node count) instead of a draw from the global
	// mix.
	pStickLimit = 0.5
	pStickNodes = 0.35
	// accounts is the number of project accounts; pSecondAccount of users
	// also charge a second one, for pUseSecond of their jobs.
	accounts       = 60
	pSecondAccount = 0.25
	pUseSecond     = 0.3
	// pFirstName is the share of a user's jobs that use their first job name.
	pFirstName = 0.7
)

// memKind is how a user requests memory: a per-node amount printed in G
// or M. Jobs get whole nodes whatever they ask for.
var memKinds = []struct {
	perNode int64  // in unit
	unit    string // "G" or "M"
	weight  float64
}{
	{250, "G", 0.65}, {250000, "M", 0.10}, {64, "G", 0.10}, {128, "G", 0.10}, {200, "G", 0.05},
}

// failExits are the exit codes of FAILED jobs (section 10.7).
var failExits = []struct {
	text   string
	weight float64
}{
	{"1:0", 70}, {"127:0", 11}, {"2:0", 5.4}, {"6:0", 3.2}, {"13:0", 0.7}, {"126:0", 0.7},
	{"12:0", 0.5}, {"11:0", 0.4}, {"15:0", 0.3}, {"9:0", 0.3}, {"0:9", 0.25}, {"23:0", 0.2},
	{"8:0", 0.15}, {"3:0", 0.1},
}

// jobNames are the stems of synthetic job names.
var jobNames = []string{
	"python", "bash", "sbatch.sh", "job.slurm", "run.sh", "train", "train_ddp", "finetune",
	"inference", "eval", "lammps", "gromacs", "namd", "amber", "vasp", "qe_scf", "cp2k",
	"openfoam", "wrf", "tensorflow", "pytorch", "jupyter", "tap_jupyter", "tap_rstudio",
	"interactive", "alphafold", "colabfold", "md_run", "relax", "sweep", "hpo", "bench",
	"nccl_test", "cuda_test", "diffusion", "llm_ft", "rnaseq", "relion", "cfd_run", "mc_sim",
}

// accountPrefixes are the stems of synthetic project accounts.
var accountPrefixes = []string{"ASC", "CCR", "DMR", "MCB", "PHY", "CHE", "BIO", "CDA", "DBS", "EAR", "CTS", "ATM"}

// phi is the standard normal CDF.
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// truncLogNormalMean is E[X | X < 1] for X = exp(N(mu, sigma^2)).
func truncLogNormalMean(mu, sigma float64) float64 {
	if sigma == 0 {
		return math.Exp(mu)
	}
	return math.Exp(mu+sigma*sigma/2) * phi((-mu-sigma*sigma)/sigma) / phi(-mu/sigma)
}

// expFloorMean is E[floor(X)] for X exponential with the given mean.
func expFloorMean(mean float64) float64 { return 1 / math.Expm1(1/mean) }

// runShare returns E[run time / limit] over started jobs, and the mean
// overrun in seconds added by TIMEOUT jobs (per started job).
func runShare() (share, overrunSec float64) {
	var total float64
	for _, c := range runClasses {
		total += c.prob
		if c.out == outTimeout {
			share += c.prob
			overrunSec += c.prob * (1 + expFloorMean(overrunMeanSec))
			continue
		}
		share += c.prob * truncLogNormalMean(math.Log(c.median), c.sigma)
	}
	return share / total, overrunSec / total
}

// meanArray is the expected number of tasks of an array.
func meanArray() float64 { return 2 + float64(arrayMaxTasks-2)/2 }

// meanBurst is the expected number of jobs per burst.
func meanBurst() float64 {
	multi := 2 + expFloorMean(burstExtraMean)
	return pArray*meanArray() + (1-pArray)*(pSingle+(1-pSingle)*multi)
}

// arrayShare is the expected share of jobs that are array tasks.
func arrayShare() float64 { return pArray * meanArray() / meanBurst() }
