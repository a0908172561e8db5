package pipelines

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// validate checks a study's slurm section (nil is valid), naming the
// first bad field.
func (sp *SlurmSpec) validate() error {
	if sp == nil {
		return nil
	}
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: slurm.%s: %s", ErrStudy, field, fmt.Sprintf(format, args...))
	}
	switch {
	case sp.CPUs < 0:
		return bad("cpus", "%d: want >= 0 (0 = Slurm's default)", sp.CPUs)
	case sp.GPUs < 0:
		return bad("gpus", "%d: want >= 0 (0 = 1 GPU when device is cuda)", sp.GPUs)
	case sp.Shards < 0:
		return bad("shards", "%d: want >= 0 (0 or 1 = one job per stage)", sp.Shards)
	}
	for _, t := range []struct {
		name string
		d    Duration
	}{{"ingest", sp.Time.Ingest}, {"features", sp.Time.Features}, {"train", sp.Time.Train}, {"evaluate", sp.Time.Evaluate}, {"report", sp.Time.Report}} {
		if t.d < 0 {
			return bad("time."+t.name, "%v: want >= 0 (0 = the partition's default)", time.Duration(t.d))
		}
	}
	for i, a := range sp.ExtraArgs {
		if !strings.HasPrefix(a, "-") || strings.ContainsAny(a, "\n\x00") {
			return bad(fmt.Sprintf("extra_args[%d]", i), "%q: want one sbatch option starting with - (e.g. --qos=long)", a)
		}
	}
	return nil
}

// stageKind is the kind of a stage for its time limit: ingest, features,
// train, predict, evaluate or report.
func stageKind(name string) string {
	kind, _, _ := strings.Cut(name, "-")
	return kind
}

// timeLimit returns sp's wall-time limit for a stage (0: none set).
func (sp *SlurmSpec) timeLimit(stage string) time.Duration {
	if sp == nil {
		return 0
	}
	switch stageKind(stage) {
	case "ingest":
		return time.Duration(sp.Time.Ingest)
	case "features":
		return time.Duration(sp.Time.Features)
	case "train", "predict":
		return time.Duration(sp.Time.Train)
	case "evaluate":
		return time.Duration(sp.Time.Evaluate)
	case "report":
		return time.Duration(sp.Time.Report)
	}
	return 0
}

// slurmTime writes d as sbatch --time wants it, D-HH:MM:SS, rounded up to
// a whole second.
func slurmTime(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d-%02d:%02d:%02d", s/86400, s%86400/3600, s%3600/60, s%60)
}

// jobScript is what one stage's batch script says: the job's sbatch
// options and the run-stage command.
type jobScript struct {
	Study   string // study name, for the job name and the comment
	Stage   string
	Key     string   // the stage's key; "" when an input is not built yet
	Binary  string   // the mirage executable (absolute)
	StudyAt string   // the study file the job reads (absolute)
	Trace   string   // --trace (absolute); "" for the study's ingest stage
	Out     string   // the output directory (absolute)
	Version string   // --key-version: the version in the stage keys
	Workers int      // --workers; 0 leaves it out
	Force   bool     // --force STAGE
	Shards  int      // > 0: a sharded stage's array task (--shards N --shard $SLURM_ARRAY_TASK_ID) or merge
	Merge   bool     // with Shards: the merge job (--shards N --merge)
	ExitAt  string   // the exit status file, without the job id
	Sbatch  []string // the sbatch arguments (before the script)
}

// args returns the run-stage command line of the job.
func (j jobScript) args() []string {
	a := []string{j.Binary, "pipeline", "run-stage", j.Stage, j.StudyAt, "-o", j.Out, "--key-version", j.Version}
	if j.Trace != "" {
		a = append(a, "--trace", j.Trace)
	}
	if j.Workers > 0 {
		a = append(a, "--workers", strconv.Itoa(j.Workers))
	}
	if j.Force {
		a = append(a, "--force", j.Stage)
	}
	switch {
	case j.Shards > 0 && j.Merge:
		a = append(a, "--shards", strconv.Itoa(j.Shards), "--merge")
	case j.Shards > 0:
		a = append(a, "--shards", strconv.Itoa(j.Shards), "--shard", arrayTask)
	}
	return a
}

// arrayTask stands for the array task's index in args; render writes it
// as "$SLURM_ARRAY_TASK_ID".
const arrayTask = "\x00SLURM_ARRAY_TASK_ID"

// render writes the batch script: bash, every path single-quoted, so
// names with spaces, quotes, $ and backticks reach mirage as they are.
// The job writes its exit status to ExitAt.JOBID.exit (atomically,
// by rename) for pipeline status once squeue has forgotten the job.
func (j jobScript) render() string {
	var b strings.Builder
	key := j.Key
	if key == "" {
		key = "not known at submission: an input was not built yet"
	} else {
		key = key[:16]
	}
	fmt.Fprintf(&b, "#!/bin/bash\n# mirage pipeline stage %s of study %s (key %s).\n", j.Stage, j.Study, key)
	b.WriteString("# Written and submitted by mirage pipeline run --executor slurm, as:\n#   sbatch")
	for _, a := range j.Sbatch {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString(" THIS-SCRIPT\n# Its outputs go to OUT/stages/STAGE-KEY/, meta.json last.\nset -u\n")
	fmt.Fprintf(&b, "cd -- %s || exit 1\n", shellQuote(j.Out))
	quoted := make([]string, 0, 16)
	for _, a := range j.args() {
		if a == arrayTask {
			quoted = append(quoted, `"$SLURM_ARRAY_TASK_ID"`)
			continue
		}
		quoted = append(quoted, shellQuote(a))
	}
	b.WriteString(strings.Join(quoted, " ") + "\n")
	exit := shellQuote(j.ExitAt+".") + `"${SLURM_JOB_ID:-none}"` + shellQuote(".exit")
	b.WriteString("rc=$?\n")
	fmt.Fprintf(&b, "printf '%%s\\n' \"$rc\" >%s.tmp && mv -f %s.tmp %s\n", exit, exit, exit)
	b.WriteString("exit \"$rc\"\n")
	return b.String()
}

// shellQuote returns s as one POSIX shell word: as it is when made only
// of safe characters, else in single quotes, a quote inside written as
// close-quote, backslash-quote, open-quote:
//
//	it's  →  'it'\''s'
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-+=:,./@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// slurmPattern escapes a path for sbatch --output, where % starts a
// replacement (%j: the job id): each % is written %%. A path with a
// backslash turns replacements off, so it is left as it is (logPaths
// then adds no %j).
func slurmPattern(path string) string {
	if strings.Contains(path, `\`) {
		return path
	}
	return strings.ReplaceAll(path, "%", "%%")
}
