// Running planned stages: each one's cache key and directory, the
// cache check against its meta.json, and independent stages in parallel.

package pipelines

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
)

// runParallel runs independent stages, at most o.Jobs at once, and
// returns their results in the stages' order; on failure, the results
// before the first failed stage and its error.
func runParallel(ctx context.Context, stages []stage, o RunOptions) ([]StageResult, error) {
	res := make([]StageResult, len(stages))
	errs := make([]error, len(stages))
	sem := make(chan struct{}, max(o.Jobs, 1))
	var wg sync.WaitGroup
	for i, st := range stages {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res[i], errs[i] = runStage(ctx, st, o)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return res[:i], fmt.Errorf("pipeline: stage %s: %w", stages[i].name, err)
		}
	}
	return res, nil
}

// stageKey returns st's key and directory under o.Out.
func stageKey(st stage, o RunOptions) (key, dir string, err error) {
	cfg, err := json.Marshal(struct {
		Stage, Version string
		Config         any
		Inputs         []string
	}{st.name, o.Version, st.config, st.inputs})
	if err != nil {
		return "", "", fmt.Errorf("stage %s: key: %w", st.name, err)
	}
	sum := sha256.Sum256(cfg)
	key = hex.EncodeToString(sum[:])
	return key, filepath.Join(o.Out, "stages", st.name+"-"+key[:16]), nil
}

// runStage runs st unless a finished directory of its key, whose
// outputs match its meta.json (checkStage), exists; it holds the stage's
// lock meanwhile. A damaged stage is logged and redone.
func runStage(ctx context.Context, st stage, o RunOptions) (StageResult, error) {
	key, dir, err := stageKey(st, o)
	if err != nil {
		return StageResult{}, err
	}
	res := StageResult{Name: st.name, Key: key, Dir: dir}
	forced := slices.Contains(o.Force, st.name)
	if o.DryRun {
		if !forced {
			c := checkStage(dir, key, o.Verify)
			res.Cached, res.Damaged = c.fresh, c.damaged
		}
		return res, nil
	}
	lock, err := lockStage(dir)
	if err != nil {
		return res, err
	}
	defer lock.Unlock()
	if !forced {
		c := checkStage(dir, key, o.Verify)
		if c.fresh {
			res.Cached = true
			if c.refresh != nil { // best effort: the next check hashes again
				if err := writeFingerprints(dir, *c.refresh); err != nil {
					o.Logger.Warn("stage fingerprints not written", "stage", st.name, "err", err)
				}
			}
			o.Logger.Info("stage cached", "stage", st.name, "dir", dir)
			return res, nil
		}
		if res.Damaged = c.damaged; c.damaged != "" {
			o.Logger.Warn(st.name+": "+c.damaged+": redoing", "stage", st.name, "dir", dir)
		}
	}
	if _, err := atomicfile.RemoveStale(dir); err != nil { // killed runs' temporaries beside dir
		return res, err
	}
	if err := os.RemoveAll(dir); err != nil { // an unfinished, damaged or forced run
		return res, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	o.Logger.Info("stage", "stage", st.name, "dir", dir)
	began := time.Now()
	if err := st.run(ctx, dir); err != nil {
		return res, err
	}
	res.Seconds = time.Since(began).Seconds()
	return res, recordStage(dir, stageMeta{Stage: st.name, Key: key, Inputs: st.inputs, Seconds: res.Seconds})
}
