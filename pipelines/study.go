package pipelines

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest"
)

// ErrStudy is wrapped by every error about a study's contents.
var ErrStudy = errors.New("invalid study")

// Study describes a cluster and an experiment once: the trace, the
// cluster model, the service chains, the training and validation
// periods, the decision grid and the overlap budget. Every stage reads
// its settings from here. Field by field with units:
// pipelines/docs/study.md.
type Study struct {
	// dir is the directory of the study file: relative trace inputs are
	// read from there ("" for a built-in study: the working directory).
	dir string
	// Name names the study; the training protocol is called Name and the
	// validation protocol Name + "-val" (samples record it).
	Name    string      `yaml:"name" mapstructure:"name" json:"name"`
	Trace   TraceSpec   `yaml:"trace" mapstructure:"trace" json:"trace"`
	Cluster ClusterSpec `yaml:"cluster" mapstructure:"cluster" json:"cluster"`
	Chains  ChainSpec   `yaml:"chains" mapstructure:"chains" json:"chains"`
	Periods PeriodsSpec `yaml:"periods" mapstructure:"periods" json:"periods"`
	Grid    GridSpec    `yaml:"grid" mapstructure:"grid" json:"grid"`
	Budget  BudgetSpec  `yaml:"budget" mapstructure:"budget" json:"budget"`
	// Grounds are what the report needs to recommend a policy.
	Grounds  GroundsSpec `yaml:"grounds,omitempty" mapstructure:"grounds" json:"grounds,omitempty"`
	Models   []ModelSpec `yaml:"models,omitempty" mapstructure:"models" json:"models,omitempty"`
	Policies []string    `yaml:"policies,omitempty" mapstructure:"policies" json:"policies,omitempty"`
	// Sweep also evaluates each forest, xgboost and estimate model and
	// each forecast at a fixed sweep of its rule parameter beside its
	// operating point, and oracle-cost at a sweep of λ, the hindsight
	// frontier (evaluate.SweepModels, mirage evaluate --sweep).
	Sweep bool `yaml:"sweep,omitempty" mapstructure:"sweep" json:"sweep,omitempty"`
	// Predictions adds a features-validation stage (the validation
	// period's labelled samples) and a predict stage for each forest and
	// xgboost model of target r; the report draws predicted vs actual r
	// on those out-of-sample rows.
	Predictions bool `yaml:"predictions,omitempty" mapstructure:"predictions" json:"predictions,omitempty"`
	// Analyze adds an analyze stage (mirage analyze of the trace: tables,
	// figures and analysis.html, analyze/README.md) after the ingest.
	Analyze bool `yaml:"analyze,omitempty" mapstructure:"analyze" json:"analyze,omitempty"`
	// RealChains has the evaluate stage also replay the trace's own
	// service chains whose heads were submitted in the validation period
	// (evaluate.RealChains, from the first validation window's start to
	// the last one's end): chains.csv beside windows.csv, and the report
	// states what the users lost on them against what the simulator's
	// reactive and recommended policies give.
	RealChains bool `yaml:"real_chains,omitempty" mapstructure:"real_chains" json:"real_chains,omitempty"`
	// Lifetime has the evaluate stage also replay every policy as a
	// service of several links from the validation windows
	// (evaluate.Lifetimes, mirage evaluate --lifetime): lifetimes.csv and
	// metrics.json's lifetime. nil: off.
	Lifetime *LifetimeSpec `yaml:"lifetime,omitempty" mapstructure:"lifetime" json:"lifetime,omitempty"`
	// Device is where the xgboost models train: cpu ("" too), cuda or
	// auto (mirage train --device); with cuda the Slurm executor asks
	// GPUs for each xgboost training stage.
	Device string `yaml:"device,omitempty" mapstructure:"device" json:"device,omitempty"`
	// Slurm is how pipeline run --executor slurm submits the stages; nil
	// takes the cluster's defaults.
	Slurm *SlurmSpec `yaml:"slurm,omitempty" mapstructure:"slurm" json:"slurm,omitempty"`
	// Features adds optional columns to the samples of every features
	// stage; nil adds none.
	Features *FeaturesSpec `yaml:"features,omitempty" mapstructure:"features" json:"features,omitempty"`
}

// FeaturesSpec are the optional feature columns of a study's samples.
type FeaturesSpec struct {
	// RuntimeModel is a run-time model (mirage train --model runtime) or
	// a forecast directory (train --model forecast, for its run-time
	// model), relative to the study file's directory: every features
	// stage adds the column features.ModelEstimateName (seconds) computed
	// with it and records it in the samples' metadata, as features build
	// --runtime-model does. "" adds no column. pipeline run refuses a
	// path that is neither before any stage runs.
	RuntimeModel string `yaml:"runtime_model,omitempty" mapstructure:"runtime_model" json:"runtime_model,omitempty"`
	// Wide adds the wide columns (features.WideNames: what predicts long
	// waits for a job of Q's shape) to every features stage's samples
	// (features.Protocol.Wide), as features build --wide does; false adds
	// none.
	Wide bool `yaml:"wide,omitempty" mapstructure:"wide" json:"wide,omitempty"`
}

// SlurmSpec is how the Slurm executor submits a study's stages, one
// sbatch job per stale stage. Empty fields leave the choice to Slurm (the
// partition's and the account's defaults).
type SlurmSpec struct {
	// Partition is sbatch --partition; "" is the cluster's default.
	Partition string `yaml:"partition,omitempty" mapstructure:"partition" json:"partition,omitempty"`
	// Account is sbatch --account; "" is the user's default account.
	Account string `yaml:"account,omitempty" mapstructure:"account" json:"account,omitempty"`
	// CPUs is each stage's --cpus-per-task, and the windows it simulates
	// at once (--workers); 0 leaves both to their defaults (Slurm: 1 CPU;
	// mirage: every CPU the job sees).
	CPUs int `yaml:"cpus,omitempty" mapstructure:"cpus" json:"cpus,omitempty"`
	// GPUs is the GPUs each xgboost training stage asks
	// (--gres=gpu:GPUs) when the study's device is cuda; 0 means 1.
	// Other stages ask none.
	GPUs int `yaml:"gpus,omitempty" mapstructure:"gpus" json:"gpus,omitempty"`
	// Shards, when > 1, runs features-train and evaluate as a job array
	// of that many tasks (at most one per window), each over a run of
	// the windows, then a merge job; the outputs are the unsharded
	// stage's, byte for byte. 0 or 1: one job per stage.
	Shards int `yaml:"shards,omitempty" mapstructure:"shards" json:"shards,omitempty"`
	// Time is the wall-time limit (sbatch --time) of each stage kind (a
	// sharded stage's tasks and merge job each get its limit).
	Time SlurmTimes `yaml:"time,omitempty" mapstructure:"time" json:"time,omitempty"`
	// ExtraArgs are added to every sbatch as they are, one argument each
	// (for example --qos=long or --mem=16G); each starts with "-".
	ExtraArgs []string `yaml:"extra_args,omitempty" mapstructure:"extra_args" json:"extra_args,omitempty"`
}

// SlurmTimes are the wall-time limits of the stage kinds, rounded up to
// whole seconds; zero takes the partition's default limit.
type SlurmTimes struct {
	// Ingest limits the ingest stage.
	Ingest Duration `yaml:"ingest,omitempty" mapstructure:"ingest" json:"ingest,omitempty"`
	// Features limits the features stages (features-train).
	Features Duration `yaml:"features,omitempty" mapstructure:"features" json:"features,omitempty"`
	// Train limits each model's stage (train-KIND[-TARGET]) and each
	// predict stage (predict-KIND-r).
	Train Duration `yaml:"train,omitempty" mapstructure:"train" json:"train,omitempty"`
	// Evaluate limits the evaluate stage.
	Evaluate Duration `yaml:"evaluate,omitempty" mapstructure:"evaluate" json:"evaluate,omitempty"`
	// Report limits the report stage.
	Report Duration `yaml:"report,omitempty" mapstructure:"report" json:"report,omitempty"`
}

// TraceSpec is the trace and how to ingest it.
type TraceSpec struct {
	// Inputs are the trace files (sacct, SWF, ...; see mirage ingest).
	Inputs []string `yaml:"inputs,omitempty" mapstructure:"inputs" json:"inputs,omitempty"`
	// Zone is the IANA time zone of the trace's local times and of every
	// calendar time in the study (period starts, hour-of-day features).
	Zone string `yaml:"zone" mapstructure:"zone" json:"zone"`
	// Cluster is the cluster name written into the trace.
	Cluster string `yaml:"cluster,omitempty" mapstructure:"cluster" json:"cluster,omitempty"`
	// Format forces the input format (see mirage ingest --format); ""
	// detects it.
	Format string `yaml:"format,omitempty" mapstructure:"format" json:"format,omitempty"`
	// CoresPerNode maps SWF processors to nodes when the SWF header does
	// not; StartTime (RFC 3339) anchors an SWF without UnixStartTime.
	CoresPerNode int    `yaml:"cores_per_node,omitempty" mapstructure:"cores_per_node" json:"cores_per_node,omitempty"`
	StartTime    string `yaml:"start_time,omitempty" mapstructure:"start_time" json:"start_time,omitempty"`
	// Synth, in place of Inputs, makes the ingest stage generate a
	// synthetic sacct trace (mirage synth) in Zone and ingest it.
	Synth *SynthSpec `yaml:"synth,omitempty" mapstructure:"synth" json:"synth,omitempty"`
}

// SynthSpec is a synthetic trace (ingest/synth, mirage synth): zero
// fields take mirage synth's defaults. The printed times are in the
// study's trace.zone and the Cluster column is trace.cluster (or synth).
type SynthSpec struct {
	// Jobs is the number of jobs; 0 means 25,000.
	Jobs int `yaml:"jobs,omitempty" mapstructure:"jobs" json:"jobs,omitempty"`
	// Seed selects the random stream; 0 means 1.
	Seed uint64 `yaml:"seed,omitempty" mapstructure:"seed" json:"seed,omitempty"`
	// Nodes is the generated partition's size in nodes; 0 means 88.
	Nodes int `yaml:"nodes,omitempty" mapstructure:"nodes" json:"nodes,omitempty"`
	// Utilisation is the offered load, the target share of busy
	// node-seconds in (0, 4]; 0 means 0.7.
	Utilisation float64 `yaml:"utilisation,omitempty" mapstructure:"utilisation" json:"utilisation,omitempty"`
	// Start is the first submit time, YYYY-MM-DDTHH:MM:SS in trace.zone;
	// "" means 2022-11-01T00:00:00.
	Start string `yaml:"start,omitempty" mapstructure:"start" json:"start,omitempty"`
}

// ClusterSpec is the simulated partition.
type ClusterSpec struct {
	// Profile is the simulator profile: default, mirage-compat or ls6.
	Profile string `yaml:"profile" mapstructure:"profile" json:"profile"`
	// Nodes is the partition size in nodes; 0 takes the profile's.
	Nodes int `yaml:"nodes,omitempty" mapstructure:"nodes" json:"nodes,omitempty"`
	// InferDependencies holds a job that started right after a same-user
	// job ended until that job ends; InferCapacity derives the usable
	// nodes over time from the trace's busy nodes (causally).
	InferDependencies bool `yaml:"infer_dependencies" mapstructure:"infer_dependencies" json:"infer_dependencies"`
	InferCapacity     bool `yaml:"infer_capacity" mapstructure:"infer_capacity" json:"infer_capacity"`
	// AllowSkip runs the study even when the trace's jobs wider than the
	// partition (which the simulator skips) are more than 1% of its jobs
	// or node-hours (sim.MaxSkipShare); otherwise pipeline run refuses it
	// before any stage (Study.CheckFit).
	AllowSkip bool `yaml:"allow_skip,omitempty" mapstructure:"allow_skip" json:"allow_skip,omitempty"`
	// Calibrate fits the simulator to the trace's real waits on the
	// training months before any stage simulates (the calibrate stage,
	// replay.Calibrate, from cluster.profile): the fitted profile, and
	// its inferences, replace cluster.profile and cluster.infer_* for
	// every later stage.
	Calibrate bool `yaml:"calibrate,omitempty" mapstructure:"calibrate" json:"calibrate,omitempty"`
}

// ChainSpec is the shape of the service chains.
type ChainSpec struct {
	// Nodes are the chain sizes in nodes, one chain per size and window.
	Nodes []int `yaml:"nodes" mapstructure:"nodes" json:"nodes"`
	// Limit is the time limit of the chain's jobs (and their run time:
	// a service runs until its limit); 0 means 48 h. It must not exceed
	// the longest limit the trace's jobs had (CheckFit): a real Slurm
	// refuses a job above its partition's maximum time.
	Limit Duration `yaml:"limit,omitempty" mapstructure:"limit" json:"limit,omitempty"`
	// QTimeMin is the successor Q's --time-min (features.Protocol.QTimeMin):
	// backfill may start Q earlier under a limit between it and Limit, so
	// a link can come out shorter. 0 is none.
	QTimeMin Duration `yaml:"q_time_min,omitempty" mapstructure:"q_time_min" json:"q_time_min,omitempty"`
	// Partition names the partition of the cluster's profile the chains
	// run in (sim.Partition; features.Protocol.Partition): only its jobs
	// are simulated. "" is the profile's default partition.
	Partition string `yaml:"partition,omitempty" mapstructure:"partition" json:"partition,omitempty"`
}

// PeriodsSpec are the windows: a training and a validation period with
// the same window shape.
type PeriodsSpec struct {
	Train      Period `yaml:"train" mapstructure:"train" json:"train"`
	Validation Period `yaml:"validation" mapstructure:"validation" json:"validation"`
	// Warmup is the simulated time before P is submitted; Workload the
	// span of trace jobs replayed after the window's start.
	Warmup   Duration `yaml:"warmup" mapstructure:"warmup" json:"warmup"`
	Workload Duration `yaml:"workload" mapstructure:"workload" json:"workload"`
	// Mode is cold (an empty cluster at the window's start) or warm (the
	// jobs running and pending at the start, from the trace).
	Mode string `yaml:"mode" mapstructure:"mode" json:"mode"`
}

// Period is a run of windows.
type Period struct {
	// Start is the first window's start, YYYY-MM-DDTHH:MM:SS in the
	// trace's zone.
	Start string `yaml:"start" mapstructure:"start" json:"start"`
	// Windows is the number of windows per chain size.
	Windows int `yaml:"windows" mapstructure:"windows" json:"windows"`
	// Stride is the time between window starts.
	Stride Duration `yaml:"stride" mapstructure:"stride" json:"stride"`
}

// GridSpec says which decision times are labelled.
type GridSpec struct {
	// Probes is "grid" (every decision time a policy sees, Dense and
	// Sparse below) or a count of evenly spaced probes (the Mirage
	// artifact's 7).
	Probes string `yaml:"probes" mapstructure:"probes" json:"probes"`
	// Decision is the decision interval; Dense the span before P's
	// expected end labelled at every decision; Sparse the spacing before
	// that (a multiple of Decision). Zero takes 10 min, 24 h and 1 h.
	Decision Duration `yaml:"decision,omitempty" mapstructure:"decision" json:"decision,omitempty"`
	Dense    Duration `yaml:"dense,omitempty" mapstructure:"dense" json:"dense,omitempty"`
	Sparse   Duration `yaml:"sparse,omitempty" mapstructure:"sparse" json:"sparse,omitempty"`
}

// BudgetSpec is what an operating point may cost, and how it is chosen.
// GroundsSpec are the thresholds under which the report recommends
// nothing and says why (reports.Grounds).
type GroundsSpec struct {
	// MinSpearman is the least wait Spearman of the simulator's replay of
	// the study's months (the fidelity stage); 0 means 0.5, a negative
	// value checks no fidelity.
	MinSpearman float64 `yaml:"min_spearman,omitempty" mapstructure:"min_spearman" json:"min_spearman,omitempty"`
	// Negligible is the reactive policy's mean interruption per window at
	// or below which there is nothing to save; 0 means 3 minutes.
	Negligible Duration `yaml:"negligible,omitempty" mapstructure:"negligible" json:"negligible,omitempty"`
	// MaxChainRatio is the most the trace's own chains' simulated
	// reactive interruption may differ from their real one, a factor
	// either way; 0 means 2, a negative value checks
	// no chains.
	MaxChainRatio float64 `yaml:"max_chain_ratio,omitempty" mapstructure:"max_chain_ratio" json:"max_chain_ratio,omitempty"`
}

type BudgetSpec struct {
	// Overlap is the most mean overlap per window (default 1 h).
	Overlap Duration `yaml:"overlap,omitempty" mapstructure:"overlap" json:"overlap,omitempty"`
	// CVFolds is the number of time-blocked cross-validation folds over
	// the training windows the forest, xgboost and estimate models choose
	// their operating point by (mirage train --cv); 0 means 5.
	CVFolds int `yaml:"cv_folds,omitempty" mapstructure:"cv_folds" json:"cv_folds,omitempty"`
	// Rule is the statistic of the models' CV overlap held within
	// Overlap (mirage train --budget-rule: mean, every-block, nested);
	// "" is train.DefaultBudgetRule. Not the DQN's.
	Rule string `yaml:"rule,omitempty" mapstructure:"rule" json:"rule,omitempty"`
}

// ModelSpec is one model to train: kind forest, xgboost, dqn, estimate
// or estimate-rt, and for forest and xgboost the target (r, interrupt,
// cliff, deadline, wait, stop).
type ModelSpec struct {
	Kind   string `yaml:"kind" mapstructure:"kind" json:"kind"`
	Target string `yaml:"target,omitempty" mapstructure:"target" json:"target,omitempty"`
	// Episodes is the DQN's training episodes (dqn only); 0 takes
	// dqn.DefaultConfig's.
	Episodes int `yaml:"episodes,omitempty" mapstructure:"episodes" json:"episodes,omitempty"`
	// DQN overrides the DQN's hyper-parameters (dqn only): the fields of
	// its manifest's hyper_parameters, as mirage train --dqn-config, for
	// example {hidden: [64, 64], bias_episodes: 48}; an unknown field is
	// an error.
	DQN map[string]any `yaml:"dqn,omitempty" mapstructure:"dqn" json:"dqn,omitempty"`
}

// Duration is a time.Duration written as text ("48h", "10m").
type Duration time.Duration

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(bytes.TrimSpace(b)))
	if err != nil {
		return fmt.Errorf("duration %q: want e.g. 48h or 10m", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as Go does, without zero minutes or
// seconds ("48h", "10m", "1h30m").
func (d Duration) MarshalText() ([]byte, error) {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return []byte(s), nil
}

// LifetimeSpec is a study's lifetime replay (Study.Lifetime).
type LifetimeSpec struct {
	// Length is the service's lifetime, e.g. 720h (30 days).
	Length Duration `yaml:"length" mapstructure:"length" json:"length"`
	// Handover is "off" (each link runs to its end) or a duration: when a
	// successor starts, its predecessor ends that long after; "" means
	// 10m.
	Handover string `yaml:"handover,omitempty" mapstructure:"handover" json:"handover,omitempty"`
	// Every replays a lifetime from every Every-th validation window (0:
	// every one).
	Every int `yaml:"every,omitempty" mapstructure:"every" json:"every,omitempty"`
}

// options returns evaluate's options for the spec (nil for nil), or an
// error naming the bad field.
func (l *LifetimeSpec) options() (*evaluate.LifetimeOptions, error) {
	if l == nil {
		return nil, nil
	}
	length := time.Duration(l.Length)
	if length <= 0 || length%time.Second != 0 {
		return nil, fmt.Errorf("%w: lifetime.length: %v: want a positive whole number of seconds", ErrStudy, length)
	}
	if l.Every < 0 {
		return nil, fmt.Errorf("%w: lifetime.every: %d: want >= 0", ErrStudy, l.Every)
	}
	lo := &evaluate.LifetimeOptions{LengthSec: int64(length / time.Second), HandoverSec: evaluate.DefaultHandoverSec, Every: l.Every}
	switch l.Handover {
	case "":
	case "off":
		lo.HandoverSec = evaluate.HandoverOff
	default:
		d, err := time.ParseDuration(l.Handover)
		if err != nil || d < 0 || d%time.Second != 0 {
			return nil, fmt.Errorf("%w: lifetime.handover: %q: want off or a duration >= 0 in whole seconds", ErrStudy, l.Handover)
		}
		lo.HandoverSec = int64(d / time.Second)
	}
	return lo, nil
}

// Validate checks the study's fields, naming the first bad one.
func (s *Study) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrStudy, field, fmt.Sprintf(format, args...))
	}
	if err := s.checkText(); err != nil {
		return err
	}
	if _, err := s.Lifetime.options(); err != nil {
		return err
	}
	switch {
	case s.Name == "" || strings.ContainsAny(s.Name, "/\\ \t\n"):
		return bad("name", "%q: want a non-empty name without spaces or slashes", s.Name)
	case s.Trace.Zone == "":
		return bad("trace.zone", "required (an IANA zone such as America/Chicago)")
	case s.Cluster.Nodes < 0:
		return bad("cluster.nodes", "%d: want a node count >= 0 (0 = the profile's)", s.Cluster.Nodes)
	case len(s.Chains.Nodes) == 0:
		return bad("chains.nodes", "required: at least one chain size")
	case s.Chains.Limit < 0 || time.Duration(s.Chains.Limit)%time.Minute != 0:
		return bad("chains.limit", "%v: want a whole number of minutes >= 0 (0 = 48h), as Slurm's --time", time.Duration(s.Chains.Limit))
	case s.Chains.QTimeMin < 0 || time.Duration(s.Chains.QTimeMin)%time.Minute != 0:
		return bad("chains.q_time_min", "%v: want a whole number of minutes >= 0 (0 = none), as Slurm's --time-min", time.Duration(s.Chains.QTimeMin))
	case s.Periods.Mode != "cold" && s.Periods.Mode != "warm":
		return bad("periods.mode", "%q: want cold or warm", s.Periods.Mode)
	case s.Periods.Warmup < 0 || s.Periods.Workload <= 0:
		return bad("periods", "warmup %v, workload %v: want warmup >= 0 and workload > 0", time.Duration(s.Periods.Warmup), time.Duration(s.Periods.Workload))
	case !(s.Grounds.MinSpearman <= 1) || s.Grounds.MinSpearman < -1:
		return bad("grounds.min_spearman", "%v: want a correlation in [-1, 1] (0 = 0.5; negative: no fidelity check)", s.Grounds.MinSpearman)
	case s.Grounds.MaxChainRatio > 0 && s.Grounds.MaxChainRatio < 1 || math.IsNaN(s.Grounds.MaxChainRatio):
		return bad("grounds.max_chain_ratio", "%v: want a factor >= 1 (0 = 2; negative: no chain check)", s.Grounds.MaxChainRatio)
	case s.Grounds.Negligible < 0:
		return bad("grounds.negligible", "%v: want >= 0 (0 = 3m)", time.Duration(s.Grounds.Negligible))
	case s.Budget.Overlap < 0:
		return bad("budget.overlap", "%v: want >= 0", time.Duration(s.Budget.Overlap))
	case s.Budget.CVFolds < 0 || s.Budget.CVFolds == 1:
		return bad("budget.cv_folds", "%d: want 0 (5 folds) or at least 2", s.Budget.CVFolds)
	case s.Budget.Rule != "" && !validBudgetRule(s.Budget.Rule):
		return bad("budget.rule", "%q: want mean, every-block or nested", s.Budget.Rule)
	case s.Trace.CoresPerNode < 0:
		return bad("trace.cores_per_node", "%d: want >= 0 (0 = from the SWF header)", s.Trace.CoresPerNode)
	}
	switch s.Device {
	case "", "cpu", "cuda", "auto":
	default:
		return bad("device", "%q: want cpu, cuda or auto", s.Device)
	}
	if err := s.Slurm.validate(); err != nil {
		return err
	}
	if sp := s.Trace.Synth; sp != nil {
		switch {
		case len(s.Trace.Inputs) > 0:
			return bad("trace.synth", "give trace.inputs or trace.synth, not both")
		case sp.Jobs < 0 || sp.Nodes < 0:
			return bad("trace.synth", "jobs %d, nodes %d: want >= 0 (0 = mirage synth's default)", sp.Jobs, sp.Nodes)
		case !(sp.Utilisation >= 0 && sp.Utilisation <= 4):
			return bad("trace.synth.utilisation", "%v: want 0 < utilisation <= 4 (0 = 0.7)", sp.Utilisation)
		}
		if sp.Start != "" {
			if _, err := time.Parse("2006-01-02T15:04:05", sp.Start); err != nil {
				return bad("trace.synth.start", "%q: want YYYY-MM-DDTHH:MM:SS in trace.zone", sp.Start)
			}
		}
	}
	if s.Trace.Format != "" {
		if _, err := ingest.ParseFormat(s.Trace.Format); err != nil {
			return bad("trace.format", "%v", err)
		}
	}
	if s.Trace.StartTime != "" {
		if _, err := time.Parse(time.RFC3339, s.Trace.StartTime); err != nil {
			return bad("trace.start_time", "%q: want RFC 3339, e.g. 2024-01-01T00:00:00Z", s.Trace.StartTime)
		}
	}
	if _, err := time.LoadLocation(s.Trace.Zone); err != nil {
		return bad("trace.zone", "%q: %v", s.Trace.Zone, err)
	}
	for _, n := range s.Chains.Nodes {
		if n < 1 {
			return bad("chains.nodes", "%d: want sizes >= 1", n)
		}
	}
	for _, p := range []struct {
		name string
		p    Period
	}{{"periods.train", s.Periods.Train}, {"periods.validation", s.Periods.Validation}} {
		if _, err := time.Parse("2006-01-02T15:04:05", p.p.Start); err != nil {
			return bad(p.name+".start", "%q: want YYYY-MM-DDTHH:MM:SS in trace.zone", p.p.Start)
		}
		if p.p.Windows < 1 || p.p.Stride <= 0 {
			return bad(p.name, "windows %d, stride %v: want windows >= 1 and stride > 0", p.p.Windows, time.Duration(p.p.Stride))
		}
	}
	if s.Grid.Probes != "grid" {
		if n, err := strconv.Atoi(s.Grid.Probes); err != nil || n < 1 {
			return bad("grid.probes", "%q: want grid or a positive count", s.Grid.Probes)
		}
		if s.Grid.Decision != 0 || s.Grid.Dense != 0 || s.Grid.Sparse != 0 {
			return bad("grid", "decision, dense and sparse need probes: grid")
		}
	}
	seen := map[string]bool{}
	for i, m := range s.Models {
		if err := checkModel(i, m); err != nil {
			return err
		}
		if seen[modelName(m)] {
			return bad(fmt.Sprintf("models[%d]", i), "%s given twice", modelName(m))
		}
		seen[modelName(m)] = true
	}
	if err := evaluate.CheckPolicies(strings.Join(s.Policies, ",")); err != nil { // the directories: Run
		return bad("policies", "%v", err)
	}
	return nil
}

// InputPaths returns trace.inputs, relative ones from the study file's
// directory.
func (s *Study) InputPaths() []string {
	var out []string
	for _, p := range s.Trace.Inputs {
		if !filepath.IsAbs(p) && s.dir != "" {
			p = filepath.Join(s.dir, p)
		}
		out = append(out, p)
	}
	return out
}

// RuntimeModelPath returns features.runtime_model, a relative path from
// the study file's directory, or "" when the study has none.
func (s *Study) RuntimeModelPath() string {
	if s.Features == nil || s.Features.RuntimeModel == "" {
		return ""
	}
	p := s.Features.RuntimeModel
	if !filepath.IsAbs(p) && s.dir != "" {
		p = filepath.Join(s.dir, p)
	}
	return p
}

// Protocols returns the features protocols of the training and the
// validation period (features.Protocol, what features build, train
// --model dqn and evaluate run).
func (s *Study) Protocols() (train, validation features.Protocol, err error) {
	if err := s.Validate(); err != nil {
		return train, validation, err
	}
	prof, err := s.SimProfile()
	if err != nil {
		return train, validation, err
	}
	p := features.Protocol{
		Name: s.Name, Nodes: s.Cluster.Nodes, Mode: s.Periods.Mode,
		TZ: s.Trace.Zone, Warmup: time.Duration(s.Periods.Warmup), Workload: time.Duration(s.Periods.Workload),
		ChainNodes: append([]int(nil), s.Chains.Nodes...), ChainLimit: time.Duration(s.Chains.Limit),
		QTimeMin: time.Duration(s.Chains.QTimeMin), Partition: s.Chains.Partition,
	}
	p.SetProfile(prof)
	p.InferDeps, p.InferCapacity = s.Cluster.InferDependencies, s.Cluster.InferCapacity
	p.Wide = s.Features != nil && s.Features.Wide
	if s.Grid.Probes == "grid" {
		g := features.GridOptions{DecisionSec: sec(s.Grid.Decision), DenseSec: sec(s.Grid.Dense), SparseSec: sec(s.Grid.Sparse)}.WithDefaults()
		p.Grid = &g
		p.Probes = 7 // unused with a grid; the presets keep the artifact's count
	} else {
		p.Probes, _ = strconv.Atoi(s.Grid.Probes)
	}
	train, validation = p, p
	train.Start, train.Windows, train.Interval = s.Periods.Train.Start, s.Periods.Train.Windows, time.Duration(s.Periods.Train.Stride)
	validation.Name = s.Name + "-val"
	validation.Start, validation.Windows, validation.Interval = s.Periods.Validation.Start, s.Periods.Validation.Windows, time.Duration(s.Periods.Validation.Stride)
	if p.Grid != nil {
		g := *p.Grid
		validation.Grid = &g
	}
	validation.ChainNodes = append([]int(nil), s.Chains.Nodes...)
	return train, validation, nil
}

func sec(d Duration) int64 { return int64(time.Duration(d) / time.Second) }
