package pipelines

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// Locks keep two live processes from writing the same part of an output
// directory (atomicfile.TryLock: a lock file holding the writer's PID,
// taken over once that process is gone):
//
//   - OUT/.pipeline.lock: held by pipeline run (either executor) for the
//     whole run, so a second pipeline run of OUT fails at once, before
//     any stage. pipeline status takes no lock.
//   - OUT/stages/.NAME-KEY16.stage.lock: held while a stage is checked
//     against its meta.json, run and recorded, by pipeline run and by
//     pipeline run-stage (a Slurm job), which takes no whole-directory
//     lock: the jobs of different stages run at once on one OUT.
//   - OUT/shards/NAME-KEY16/.I-of-N.shard.lock: held while shard I of N
//     runs (a task of a Slurm job array); the merge takes the stage lock.
//
// A stage lock sits beside the stage directory, not in it, since a stage
// may replace its directory as a whole (atomicdir), and its name is not
// the directory's own lock (.NAME-KEY16.lock), which atomicdir takes.

// outputLockName is the whole-run lock's name under OUT, as given to
// atomicfile.TryLock (the lock file is .pipeline.lock).
const outputLockName = "pipeline"

// lockOutput creates out when missing and takes its whole-run lock.
func lockOutput(out string) (*atomicfile.Lock, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	l, err := tryLock(filepath.Join(out, outputLockName), out)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	return l, nil
}

// lockStage takes the lock of the stage directory dir (creating its
// parent).
func lockStage(dir string) (*atomicfile.Lock, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	return tryLock(dir+".stage", dir)
}

// lockShard takes the lock of the shard directory sdir (creating its
// parent).
func lockShard(sdir string) (*atomicfile.Lock, error) {
	if err := os.MkdirAll(filepath.Dir(sdir), 0o755); err != nil {
		return nil, err
	}
	return tryLock(sdir+".shard", sdir)
}

// tryLock takes the lock of path; a lock held by a live process is an
// *atomicfile.LockedError (atomicfile.ErrLocked) naming what (the output
// directory or the stage) rather than path.
func tryLock(path, what string) (*atomicfile.Lock, error) {
	l, err := atomicfile.TryLock(path)
	var le *atomicfile.LockedError
	if errors.As(err, &le) {
		le.Path = what
	}
	return l, err
}
