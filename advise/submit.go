package advise

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// SubmitOptions configures Submit.
type SubmitOptions struct {
	// Script is the successor's batch script (a path, passed to sbatch
	// as one argument).
	Script string
	// Name, when set, is Q's job name (--job-name); any text.
	Name string
	// AfterJob, when set, adds --dependency=afterany:AfterJob (for sites
	// that want Q held until P ends).
	AfterJob string
	// TimeMinSec, when > 0, adds --time-min (seconds, written as Slurm's
	// [D-]HH:MM:SS): the scheduler may start Q earlier under a shorter
	// limit, at least this (sbatch --time-min).
	TimeMinSec int64
	// DryRun returns the command without running it.
	DryRun bool
}

// SbatchArgs returns sbatch's arguments for o: --parsable, the job name,
// dependency and time-min when set, then the script. Each is one argv element: no
// shell ever sees them. A script path starting with "-" is written
// ./PATH, so that sbatch never reads it as an option.
func SbatchArgs(o SubmitOptions) []string {
	args := []string{"--parsable"}
	if o.Name != "" {
		args = append(args, "--job-name="+o.Name)
	}
	if o.AfterJob != "" {
		args = append(args, "--dependency=afterany:"+o.AfterJob)
	}
	if o.TimeMinSec > 0 {
		args = append(args, "--time-min="+SlurmDuration(o.TimeMinSec))
	}
	script := o.Script
	if strings.HasPrefix(script, "-") {
		script = "./" + script
	}
	return append(args, script)
}

// Submit runs sbatch (SbatchArgs) through r and returns Q's job ID
// (sbatch --parsable's "ID" or "ID;cluster") and the argv. With DryRun
// it runs nothing and returns an empty ID.
func Submit(ctx context.Context, r Runner, o SubmitOptions) (string, []string, error) {
	argv := append([]string{"sbatch"}, SbatchArgs(o)...)
	if o.Script == "" {
		return "", argv, fmt.Errorf("submit: no successor script")
	}
	if o.DryRun {
		return "", argv, nil
	}
	out, err := r.Run(ctx, argv[0], argv[1:]...)
	if err != nil {
		return "", argv, fmt.Errorf("submit: %w", err)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.ParseInt(strings.SplitN(id, "_", 2)[0], 10, 64); err != nil {
		return "", argv, fmt.Errorf("submit: sbatch printed %q, not a job ID", strings.TrimSpace(string(out)))
	}
	return id, argv, nil
}

// SlurmDuration writes sec seconds (>= 0) as Slurm's time format:
// HH:MM:SS, or D-HH:MM:SS from a day on.
func SlurmDuration(sec int64) string {
	sec = max(sec, 0)
	d, h, m, s := sec/86400, sec%86400/3600, sec%3600/60, sec%60
	if d > 0 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", d, h, m, s)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, s)
}
