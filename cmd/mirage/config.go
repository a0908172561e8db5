package main

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/internal/suggest"
)

// Config is every setting of every command, resolved once per run from
// flags > MIRAGE_* environment > config file > defaults. A setting's key is
// its section and flag name ("ingest.tz"); its environment variable is the
// key upper-cased with "." and "-" as "_" (MIRAGE_INGEST_TZ).
type Config struct {
	JSON     bool           `mapstructure:"json"`
	LogLevel string         `mapstructure:"log_level"`
	Ingest   IngestConfig   `mapstructure:"ingest"`
	Synth    SynthConfig    `mapstructure:"synth"`
	Trace    TraceConfig    `mapstructure:"trace"`
	Sim      SimConfig      `mapstructure:"sim"`
	Features FeaturesConfig `mapstructure:"features"`
	Train    TrainConfig    `mapstructure:"train"`
	Predict  PredictConfig  `mapstructure:"predict"`
	Evaluate EvaluateConfig `mapstructure:"evaluate"`
}

// EvaluateConfig configures `mirage evaluate`. Zero values mean the
// protocol's.
type EvaluateConfig struct {
	Trace    string `mapstructure:"trace"`
	Protocol string `mapstructure:"protocol"`
	Output   string `mapstructure:"output"`
	Policy   string `mapstructure:"policy"`
	// ChainNodes are the chain sizes, comma-separated (empty: the
	// protocol's); the key was evaluate.nodes.
	ChainNodes string `mapstructure:"chain_nodes"`
	// QTimeMin is Q's --time-min (0: the protocol's, none by default).
	QTimeMin time.Duration `mapstructure:"q_time_min"`
	// PartitionNodes is the partition size in nodes (0: the protocol's);
	// the key was evaluate.partition.
	PartitionNodes int `mapstructure:"partition_nodes"`
	// Study and Period replace Protocol, and Profile its simulator
	// profile, as in FeaturesConfig.
	Profile  string        `mapstructure:"profile"`
	Study    string        `mapstructure:"study"`
	Period   string        `mapstructure:"period"`
	Start    string        `mapstructure:"start"`
	Windows  int           `mapstructure:"windows"`
	Interval time.Duration `mapstructure:"interval"`
	Decision time.Duration `mapstructure:"decision"`
	Theta    string        `mapstructure:"theta"` // hours, comma-separated (a sweep)
	Margin   time.Duration `mapstructure:"margin"`
	// Margins are slurm-estimate margins for a sweep (durations,
	// comma-separated).
	Margins string `mapstructure:"margins"`
	// Lambda is λ of cost = interruption + λ·overlap (hours per hour).
	Lambda  float64 `mapstructure:"lambda"`
	Workers int     `mapstructure:"workers"`
	// Progress is always, auto or never (see parseProgress).
	Progress string `mapstructure:"progress"`
	// AllowSkip replays a trace whose jobs wider than the partition are
	// more than 1 % of it (sim.MaxSkipShare).
	AllowSkip bool `mapstructure:"allow_skip"`
	// RealChains also replays the trace's own service chains
	// (evaluate.RealChains) whose heads were submitted from RealChainsFrom
	// to RealChainsTo (dates or times in the protocol's zone; empty: the
	// protocol's windows' span), at most RealChainsMaxLinks links (0:
	// evaluate.DefaultChainLinks).
	// Lifetime, when not empty, also replays each policy as a service of
	// that length (a duration, days as "30d"; evaluate.Lifetimes) from
	// every LifetimeEvery-th window, with Handover ("off" or a duration).
	Lifetime           string `mapstructure:"lifetime"`
	Handover           string `mapstructure:"handover"`
	LifetimeEvery      int    `mapstructure:"lifetime_every"`
	RealChains         bool   `mapstructure:"real_chains"`
	RealChainsFrom     string `mapstructure:"real_chains_from"`
	RealChainsTo       string `mapstructure:"real_chains_to"`
	RealChainsMaxLinks int    `mapstructure:"real_chains_max_links"`
}

// PredictConfig configures `mirage predict`.
type PredictConfig struct {
	Model   string `mapstructure:"model"`
	Samples string `mapstructure:"samples"`
	Output  string `mapstructure:"output"`
}

// TrainConfig configures `mirage train`.
type TrainConfig struct {
	Model   string `mapstructure:"model"`
	Samples string `mapstructure:"samples"`
	Output  string `mapstructure:"output"`
	CV      int    `mapstructure:"cv"`
	Threads int    `mapstructure:"threads"`
	Seed    uint64 `mapstructure:"seed"`
	Device  string `mapstructure:"device"`
	// Target is r, interrupt or wait (train.Target).
	Target string `mapstructure:"target"`
	// OverlapBudget is the operating point's budget of mean overlap per
	// window.
	OverlapBudget time.Duration `mapstructure:"overlap_budget"`
	// Unweighted ignores the samples' row weights.
	Unweighted bool `mapstructure:"unweighted"`
	// StopHorizon is target stop's label horizon (0: the next decision).
	StopHorizon time.Duration `mapstructure:"stop_horizon"`
	// StopLabel is target stop's label: rate or peak (train.StopLabel).
	StopLabel string `mapstructure:"stop_label"`
	// BudgetEveryBlock makes the overlap budget hold in every CV time
	// block of the training period.
	BudgetEveryBlock bool `mapstructure:"budget_every_block"`
	// BudgetRule is the statistic of the CV overlap held within the
	// budget (train.BudgetRule; "" = train.DefaultBudgetRule).
	BudgetRule string `mapstructure:"budget_rule"`
	// DQN: the trace and features protocol whose training windows are the
	// episodes, and the episode budget (0 = the DQN default).
	Trace    string `mapstructure:"trace"`
	Protocol string `mapstructure:"protocol"`
	// Study replaces Protocol; DQN episodes are its training period.
	// Profile replaces the simulator profile, as in FeaturesConfig.
	Study    string `mapstructure:"study"`
	Profile  string `mapstructure:"profile"`
	Episodes int    `mapstructure:"episodes"`
	// DQNConfig is a JSON file of DQN hyper-parameters (the fields of
	// manifest.json's hyper_parameters) overriding dqn.DefaultConfig.
	DQNConfig string `mapstructure:"dqn_config"`
	// DQN: overrides of the protocol's windows, as in features build.
	Start      string        `mapstructure:"start"`
	Windows    int           `mapstructure:"windows"`
	Interval   time.Duration `mapstructure:"interval"`
	ChainNodes string        `mapstructure:"chain_nodes"`
	Mode       string        `mapstructure:"mode"`
	// PartitionNodes is the partition size (0: the protocol's); the key
	// was nodes.
	PartitionNodes int `mapstructure:"partition_nodes"`
	// AllowSkip (dqn, forecast) trains on a trace whose jobs wider than
	// the partition are more than 1 % of its jobs or node-hours.
	AllowSkip bool `mapstructure:"allow_skip"`
	// Params are model parameters (train.params.*); zero means the
	// model's default. Flags --objective, --huber-slope, --max-depth,
	// --eta, --rounds and --trees override them.
	Params TrainParams `mapstructure:"params"`
	// Forecast: the run-time model directory, every Stride-th training
	// window replayed, rollouts per decision and windows replayed at once.
	RuntimeModel string  `mapstructure:"runtime_model"`
	Stride       int     `mapstructure:"stride"`
	Rollouts     int     `mapstructure:"rollouts"`
	ResampleDays int     `mapstructure:"resample_days"`
	Correlation  float64 `mapstructure:"correlation"`
	Workers      int     `mapstructure:"workers"`
}

// TrainParams are the config-file model parameters (train.params.*).
type TrainParams struct {
	Objective       string  `mapstructure:"objective"` // squared or pseudohuber
	HuberSlope      float64 `mapstructure:"huber_slope"`
	MaxDepth        int     `mapstructure:"max_depth"`
	Eta             float64 `mapstructure:"eta"`
	Rounds          int     `mapstructure:"rounds"`
	Trees           int     `mapstructure:"trees"` // num_parallel_tree (forest)
	Subsample       float64 `mapstructure:"subsample"`
	ColsampleByNode float64 `mapstructure:"colsample_bynode"`
	MinChildWeight  float64 `mapstructure:"min_child_weight"`
	EarlyStopping   int     `mapstructure:"early_stopping_rounds"`
	ValidShare      float64 `mapstructure:"valid_share"`
}

// FeaturesConfig configures `mirage features build`. Zero values mean the
// protocol's.
type FeaturesConfig struct {
	Trace    string `mapstructure:"trace"`
	Protocol string `mapstructure:"protocol"`
	// Study (a built-in name or a file), when set, replaces Protocol:
	// its Period ("train" or "validation") gives the windows. Profile,
	// when set, replaces the protocol's simulator profile (a built-in
	// name or a profile file), its inferences included.
	Study      string        `mapstructure:"study"`
	Profile    string        `mapstructure:"profile"`
	Period     string        `mapstructure:"period"`
	Output     string        `mapstructure:"output"`
	Start      string        `mapstructure:"start"`
	Windows    int           `mapstructure:"windows"`
	Interval   time.Duration `mapstructure:"interval"`
	Probes     string        `mapstructure:"probes"`
	GridDense  time.Duration `mapstructure:"grid_dense"`
	GridSparse time.Duration `mapstructure:"grid_sparse"`
	ChainNodes string        `mapstructure:"chain_nodes"`
	Mode       string        `mapstructure:"mode"`
	// QTimeMin is Q's --time-min (0: the protocol's, none by default).
	QTimeMin time.Duration `mapstructure:"q_time_min"`
	// PartitionNodes is the partition size (0: the protocol's); the key
	// was nodes.
	PartitionNodes int    `mapstructure:"partition_nodes"`
	Workers        int    `mapstructure:"workers"`
	Seed           uint64 `mapstructure:"seed"`
	Progress       string `mapstructure:"progress"` // always, auto or never
	AllowSkip      bool   `mapstructure:"allow_skip"`
	// RuntimeModel, when set, is a run-time model or forecast directory
	// whose medians give the q_est_model_start_minus_p_end_sec column.
	RuntimeModel string `mapstructure:"runtime_model"`
	// Wide adds the wide columns (features.WideNames).
	Wide bool `mapstructure:"wide"`
}

// SimConfig configures `mirage sim ...`.
type SimConfig struct {
	Trace   string `mapstructure:"trace"`
	Profile string `mapstructure:"profile"`
	// PartitionNodes is the partition size (0: the profile's); the key
	// was sim.nodes.
	PartitionNodes  int    `mapstructure:"partition_nodes"`
	Backfill        string `mapstructure:"backfill"`
	Cancelled       string `mapstructure:"cancelled"`
	MaxJobsPerUser  int    `mapstructure:"max_jobs_per_user"`
	MaxNodesPerUser int    `mapstructure:"max_nodes_per_user"`
	// MaxJobsPerUser, MaxNodesPerUser, BfMaxJobTest and BfMaxJobUser
	// override the profile's limits when >= 0 (MaxJobsPU,
	// MaxTRESPU=node=N, bf_max_job_test, bf_max_job_user; 0 = none).
	BfMaxJobTest int    `mapstructure:"bf_max_job_test"`
	BfMaxJobUser int    `mapstructure:"bf_max_job_user"`
	InferDeps    bool   `mapstructure:"infer_deps"`
	From         string `mapstructure:"from"`
	To           string `mapstructure:"to"`
	TZ           string `mapstructure:"tz"`
	// Capacity inference (sim.InferCapacity) from the trace's busy nodes:
	// each setting overrides the profile's when set (CapacityBucket > 0,
	// the others >= 0).
	InferCapacity      bool          `mapstructure:"infer_capacity"`
	CapacityBucket     time.Duration `mapstructure:"capacity_bucket"`
	CapacitySmooth     int           `mapstructure:"capacity_smooth"`
	CapacityHeadroom   int           `mapstructure:"capacity_headroom"`
	CapacityMinPending time.Duration `mapstructure:"capacity_min_pending"`
	// CapacityLookahead selects the non-causal capacity inference.
	CapacityLookahead bool `mapstructure:"capacity_lookahead"`
	// RuntimeModel and Output are sim starts': a run-time model
	// directory (train --model runtime) and the output directory.
	RuntimeModel string `mapstructure:"runtime_model"`
	Output       string `mapstructure:"output"`
	// ForecastRollouts, when > 0, adds sim starts' forecast median over
	// that many rollouts with the run-time model.
	ForecastRollouts int `mapstructure:"forecast_rollouts"`
	// CheckTo, Workers and Seed are sim calibrate's: the end of the check
	// months (empty: the trace's end), the replays at once (0:
	// GOMAXPROCS) and the seed of the months it samples.
	CheckTo string `mapstructure:"check_to"`
	// Study, for sim calibrate, takes the calibration from a study
	// (pipelines.Study.Calibration) in place of the flags.
	Study   string `mapstructure:"study"`
	Workers int    `mapstructure:"workers"`
	Seed    uint64 `mapstructure:"seed"`
	// NoTune, for sim calibrate, leaves out the coordinate search of
	// the continuous settings after the grid.
	NoTune bool `mapstructure:"no_tune"`
	// AllowSkip replays a trace whose jobs wider than the partition are
	// more than 1 % of it (sim.MaxSkipShare); Progress is always, auto or
	// never.
	AllowSkip bool   `mapstructure:"allow_skip"`
	Progress  string `mapstructure:"progress"`
}

// IngestConfig configures `mirage ingest`.
type IngestConfig struct {
	Format       string `mapstructure:"format"`
	TZ           string `mapstructure:"tz"`
	Cluster      string `mapstructure:"cluster"`
	Output       string `mapstructure:"output"`
	Quarantine   string `mapstructure:"quarantine"`
	Strict       bool   `mapstructure:"strict"`
	CoresPerNode int    `mapstructure:"cores_per_node"`
	StartTime    string `mapstructure:"start_time"` // RFC 3339; "" = none
	// Columns is ingest.ParseColumnMap's spec: a built-in map's name
	// (eagle, pm100) or FROM=TO pairs; "" = none.
	Columns string `mapstructure:"columns"`
	// KeepCurrent skips the run when the output already holds the same
	// inputs ingested with the options given on the command line.
	KeepCurrent  bool   `mapstructure:"keep_current"`
	RowGroupRows int    `mapstructure:"row_group_rows"`
	Progress     string `mapstructure:"progress"` // always, auto or never
	// AllowEmpty accepts a run whose every row is quarantined.
	AllowEmpty bool `mapstructure:"allow_empty"`
	// MaxLineBytes and MaxFieldBytes are ingest.Options' (0: defaults).
	MaxLineBytes  int `mapstructure:"max_line_bytes"`
	MaxFieldBytes int `mapstructure:"max_field_bytes"`
}

// SynthConfig configures `mirage synth`.
type SynthConfig struct {
	Jobs int    `mapstructure:"jobs"`
	Seed uint64 `mapstructure:"seed"`
	// PartitionNodes is the synthetic partition's size; the key was
	// synth.nodes.
	PartitionNodes int     `mapstructure:"partition_nodes"`
	Format         string  `mapstructure:"format"`
	Output         string  `mapstructure:"output"`
	Utilisation    float64 `mapstructure:"utilisation"`
	TZ             string  `mapstructure:"tz"`
	Start          string  `mapstructure:"start"`
	Cluster        string  `mapstructure:"cluster"`
	Steps          bool    `mapstructure:"steps"`
}

// TraceConfig configures `mirage trace ...`.
type TraceConfig struct{}

// configSection is the cobra annotation naming a command's Config section.
const configSection = "mirage.config_section"

// resolveConfig builds the Config for cmd: defaults, then the config file,
// then MIRAGE_* variables, then the flags the user set. A setting's old
// name (addRenamedFlag) is read as its new one, with a warning returned.
func resolveConfig(cmd *cobra.Command, configFile string, defaults Config) (Config, []string, error) {
	v := viper.New()
	setDefaults(v, "", reflect.ValueOf(defaults))
	if configFile != "" {
		v.SetConfigFile(configFile)
		if err := v.ReadInConfig(); err != nil {
			return Config{}, nil, usagef("read config %s: %w", configFile, err)
		}
		keys, err := configFileKeys(configFile)
		if err != nil {
			return Config{}, nil, err
		}
		if err := checkConfigKeys(cmd.Root(), configFile, keys, defaults); err != nil {
			return Config{}, nil, err
		}
	}
	v.SetEnvPrefix("MIRAGE")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))
	v.AutomaticEnv()
	warnings, err := applyRenamed(cmd, v)
	if err != nil {
		return Config{}, nil, err
	}
	bind := func(prefix string, fs *pflag.FlagSet) error {
		var err error
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Name == "config" || f.Name == "help" || f.Name == "version" || err != nil {
				return
			}
			key := prefix + strings.ReplaceAll(f.Name, "-", "_")
			if v.IsSet(key) || isKnown(v, key) {
				err = v.BindPFlag(key, f)
			}
		})
		return err
	}
	if err := bind("", cmd.Root().PersistentFlags()); err != nil {
		return Config{}, nil, err
	}
	if section := cmd.Annotations[configSection]; section != "" {
		if err := bind(section+".", cmd.LocalNonPersistentFlags()); err != nil {
			return Config{}, nil, err
		}
	}
	var cfg Config
	if err := v.Unmarshal(&cfg); err != nil {
		return Config{}, nil, usagef("configuration: %w", err)
	}
	return cfg, warnings, nil
}

func isKnown(v *viper.Viper, key string) bool {
	for _, k := range v.AllKeys() {
		if k == key {
			return true
		}
	}
	return false
}

// setDefaults registers every field of a Config value as a viper default,
// so that environment variables and config files can set any of them.
func setDefaults(v *viper.Viper, prefix string, rv reflect.Value) {
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		key := f.Tag.Get("mapstructure")
		if key == "" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			setDefaults(v, prefix+key+".", rv.Field(i))
			continue
		}
		v.SetDefault(prefix+key, rv.Field(i).Interface())
	}
}

// defaultConfig returns the built-in defaults.
func defaultConfig() Config {
	return Config{
		LogLevel: "info",
		Ingest:   IngestConfig{Format: "auto", Progress: "auto"},
		Sim: SimConfig{Profile: "default", TZ: "UTC", MaxJobsPerUser: -1, MaxNodesPerUser: -1, BfMaxJobTest: -1, BfMaxJobUser: -1,
			CapacitySmooth: -1, CapacityHeadroom: -1, CapacityMinPending: -time.Second, Progress: "auto"},
		Features: FeaturesConfig{Protocol: "mirage-ls6", Period: "train", Progress: "auto"},
		Train: TrainConfig{Model: "forest", CV: 5, Seed: 1, Device: "cpu", Target: "r", OverlapBudget: time.Hour,
			Stride: 1, Rollouts: evaluate.DefaultRollouts, ResampleDays: 0, Correlation: evaluate.DefaultCorrelation},
		Evaluate: EvaluateConfig{Protocol: "mirage-ls6-val", Period: "validation", Policy: "reactive,immediate,avg,slurm-estimate,oracle,oracle-cost", Lambda: 0.5,
			Decision: 10 * time.Minute, Progress: "auto", Handover: "10m", LifetimeEvery: 1},
		Synth: SynthConfig{
			Jobs: 20000, Seed: 1, PartitionNodes: 88, Format: "sacct", Utilisation: 0.7,
			TZ: "America/Chicago", Start: "2022-11-01T00:00:00", Cluster: "synth",
		},
	}
}

// configFileKeys returns the keys a config file sets ("ingest.tz"),
// lower-cased as viper reads them.
func configFileKeys(path string) ([]string, error) {
	fv := viper.New()
	fv.SetConfigFile(path)
	if err := fv.ReadInConfig(); err != nil {
		return nil, usagef("read config %s: %w", path, err)
	}
	return fv.AllKeys(), nil
}

// configKeys lists every key of a Config value ("ingest.tz",
// "train.params.eta").
func configKeys(prefix string, rt reflect.Type, out map[string]bool) {
	for i := range rt.NumField() {
		f := rt.Field(i)
		key := f.Tag.Get("mapstructure")
		if key == "" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			out[prefix+key] = true // a section given as a whole
			configKeys(prefix+key+".", f.Type, out)
			continue
		}
		out[prefix+key] = true
	}
}

// checkConfigKeys returns a usage error naming the first key of the
// config file path that is no setting (ingest.tzz), with the section's
// keys and a did-you-mean; the old names of renamed flags
// (addRenamedFlag) are settings.
func checkConfigKeys(root *cobra.Command, path string, keys []string, defaults Config) error {
	known := map[string]bool{}
	configKeys("", reflect.TypeOf(defaults), known)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if section := c.Annotations[configSection]; section != "" {
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if r, ok := f.Value.(*renamedValue); ok {
					known[section+"."+strings.ReplaceAll(r.old, "-", "_")] = true
				}
			})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	slices.Sort(keys)
	for _, k := range keys {
		if known[k] {
			continue
		}
		section, name, nested := strings.Cut(k, ".")
		var options []string
		for kk := range known {
			if s, n, ok := strings.Cut(kk, "."); nested && ok && s == section && !strings.Contains(n, ".") {
				options = append(options, n)
			} else if !nested && !ok {
				options = append(options, kk)
			}
		}
		slices.Sort(options)
		if nested && len(options) == 0 {
			var sections []string
			for kk := range known {
				if s, _, ok := strings.Cut(kk, "."); ok && !slices.Contains(sections, s) {
					sections = append(sections, s)
				}
			}
			slices.Sort(sections)
			return usagef("config %s: unknown key %s: no section %s (sections: %s)%s", path, k, section, strings.Join(sections, ", "), suggest.Hint(section, sections))
		}
		if !nested {
			name = k
		}
		return usagef("config %s: unknown key %s (known there: %s)%s", path, k, strings.Join(options, ", "), suggest.Hint(name, options))
	}
	return nil
}

// setting names where a command's setting (its flag name) came from, for
// an error about its value: the flag when given, else its MIRAGE_*
// variable when set, else its config file key when the file sets it,
// else the flag.
func settingName(cmd *cobra.Command, flag string) string {
	if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
		return "--" + flag
	}
	section := cmd.Annotations[configSection]
	if section == "" {
		return "--" + flag
	}
	key := section + "." + strings.ReplaceAll(flag, "-", "_")
	env := "MIRAGE_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
	if _, ok := os.LookupEnv(env); ok {
		return env
	}
	if cf := cmd.Root().PersistentFlags().Lookup("config"); cf != nil && cf.Value.String() != "" {
		if keys, err := configFileKeys(cf.Value.String()); err == nil && slices.Contains(keys, key) {
			return key + " (config " + cf.Value.String() + ")"
		}
	}
	return "--" + flag
}
