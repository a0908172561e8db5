package pipelines

import (
	"errors"
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
// as "$SLURM_ARRAY_TASK_ID". No value can be it: render refuses a NUL.
const arrayTask = "\x00SLURM_ARRAY_TASK_ID"

// scriptLines is the number of lines render writes; scriptStatements
// the shell statements among them (set, cd, the command, rc=, the exit
// status file, exit): the other lines are comments.
const (
	scriptLines      = 11
	scriptStatements = 6
)

// render writes the batch script, the one place a script is made: bash,
// every value (names, key, paths, version, the sbatch arguments in the
// comment) one shell word on one line (shellQuote), so that whatever a
// value holds it reaches mirage as it is and no comment ends early. It
// refuses what check refuses. The job writes its exit status to
// ExitAt.JOBID.exit (atomically, by rename) for pipeline status once
// squeue has forgotten the job.
func (j jobScript) render() (string, error) {
	if err := j.check(); err != nil {
		return "", err
	}
	var b strings.Builder
	key := "not known at submission: an input was not built yet"
	if j.Key != "" {
		key = shellQuote(j.Key[:min(16, len(j.Key))])
	}
	fmt.Fprintf(&b, "#!/bin/bash\n# mirage pipeline stage %s of study %s (key %s).\n", shellQuote(j.Stage), shellQuote(j.Study), key)
	b.WriteString("# Written and submitted by mirage pipeline run --executor slurm, as:\n#   sbatch")
	for _, a := range j.Sbatch {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString(" THIS-SCRIPT\n# Its outputs go to OUT/stages/STAGE-KEY/, meta.json last.\nset -u\n")
	fmt.Fprintf(&b, "cd -- %s || exit 1\n", shellQuote(j.Out))
	args := j.args()
	quoted := make([]string, 0, len(args))
	for i, a := range args {
		switch {
		case a == arrayTask:
			quoted = append(quoted, `"$SLURM_ARRAY_TASK_ID"`)
		case i == 0:
			quoted = append(quoted, shellCommandQuote(a))
		default:
			quoted = append(quoted, shellQuote(a))
		}
	}
	b.WriteString(strings.Join(quoted, " ") + "\n")
	exit := shellQuote(j.ExitAt+".") + `"${SLURM_JOB_ID:-none}"` + shellQuote(".exit")
	b.WriteString("rc=$?\n")
	fmt.Fprintf(&b, "printf '%%s\\n' \"$rc\" >%s.tmp && mv -f -- %s.tmp %s\n", exit, exit, exit)
	b.WriteString("exit \"$rc\"\n")
	return b.String(), nil
}

// check refuses what render cannot write: a NUL in any value (bash ends
// a string there, and no argument can hold one), and a stage or study
// copy starting with "-" (mirage would read it as an option).
func (j jobScript) check() error {
	fields := []struct{ name, v string }{{"stage", j.Stage}, {"study copy", j.StudyAt}, {"study name", j.Study}, {"key", j.Key},
		{"binary", j.Binary}, {"trace", j.Trace}, {"output directory", j.Out}, {"version", j.Version}, {"exit status path", j.ExitAt}}
	for i, a := range j.Sbatch {
		fields = append(fields, struct{ name, v string }{fmt.Sprintf("sbatch argument %d", i+1), a})
	}
	for i, f := range fields {
		switch {
		case strings.ContainsRune(f.v, 0):
			return fmt.Errorf("batch script of stage %q: %s %q holds a NUL", j.Stage, f.name, f.v)
		case i < 2 && strings.HasPrefix(f.v, "-"): // the positional arguments
			return fmt.Errorf("batch script of stage %q: %s %q starts with -", j.Stage, f.name, f.v)
		}
	}
	return nil
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

// ErrSlurmPath is wrapped by the error for a path the Slurm executor
// cannot give a job (CheckSlurmPath).
var ErrSlurmPath = errors.New("path unfit for a Slurm job")

// CheckSlurmPath refuses a path (what names it: a flag, a field) that
// holds a newline, a carriage return or a NUL: sbatch --output, Slurm's
// job records and the jobs' logs hold one line, and no argument holds a
// NUL. The Slurm executor checks its output directory, trace and binary
// with it before submitting anything; mirage pipeline run checks -o and
// --trace.
func CheckSlurmPath(what, path string) error {
	if i := strings.IndexAny(path, "\n\r\x00"); i >= 0 {
		return fmt.Errorf("%w: %s %q holds a newline, carriage return or NUL (byte %d): choose a path without one", ErrSlurmPath, what, path, i)
	}
	return nil
}
