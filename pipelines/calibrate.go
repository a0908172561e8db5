package pipelines

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/replay"
)

// The calibrate stage's outputs: the fitted profile (a profile file with
// the calibration's figures in its header) and the calibration itself.
const (
	CalibratedProfile = "profile.yaml"
	CalibrationFile   = "calibration.json"
)

// Calibration returns the calibration the study asks for (mirage sim
// calibrate --study, the calibrate stage): the trace as the study
// simulates it (its profile, partition size and inferences; only the
// chains' partition when they name one and the profile lists none) and
// the options: the training months, from the first training window's
// start to the validation period's, fitted, and the study's months after
// them checked; partitions searched only when the chains name one.
func (s *Study) Calibration(ctx context.Context, tracePath string) (replay.In, replay.CalibrateOptions, error) {
	trainP, valP, err := s.Protocols()
	if err != nil {
		return replay.In{}, replay.CalibrateOptions{}, err
	}
	prof, co, err := calibrationOptions(s, trainP, valP)
	if err != nil {
		return replay.In{}, co, err
	}
	in, err := studyReplayIn(ctx, trainP, prof, tracePath)
	return in, co, err
}

// calibrationOptions are the profile and options of Study.Calibration
// (what the calibrate stage's key records).
func calibrationOptions(s *Study, trainP, valP features.Protocol) (sim.Profile, replay.CalibrateOptions, error) {
	var co replay.CalibrateOptions
	prof, err := trainP.ReplayProfile()
	if err != nil {
		return prof, co, fmt.Errorf("%w: %w", ErrStudy, err)
	}
	loc, err := time.LoadLocation(trainP.TZ)
	if err != nil {
		return prof, co, err
	}
	from, end, err := studyMonths(trainP, valP)
	if err != nil {
		return prof, co, err
	}
	to, err := time.ParseInLocation("2006-01-02T15:04:05", valP.Start, loc)
	if err != nil {
		return prof, co, fmt.Errorf("%w: periods.validation.start: %w", ErrStudy, err)
	}
	co = replay.CalibrateOptions{From: from, To: to.Unix(), CheckTo: end, Zone: loc, Seed: 1, AllowSkip: true,
		NoPartitions: s.Chains.Partition == ""}
	return prof, co, nil
}

// calibrateStage fits the simulator to the trace's real waits
// (Study.Calibration, replay.Calibrate) and writes the fitted profile
// (CalibratedProfile) and the calibration (CalibrationFile). It reads
// the trace only.
func calibrateStage(s *Study, trainP, valP features.Protocol, traceKey string, o RunOptions) (stage, error) {
	prof, co, err := calibrationOptions(s, trainP, valP)
	if err != nil {
		return stage{}, err
	}
	return stage{name: "calibrate", config: struct {
		Profile          sim.Profile
		From, To, Check  int64
		Seed             uint64
		NoPartitions     bool `json:",omitempty"`
		CalibrateVersion int
	}{prof, co.From, co.To, co.CheckTo, co.Seed, co.NoPartitions, 2}, inputs: []string{traceKey},
		run: func(ctx context.Context, dir string) error {
			in, err := studyReplayIn(ctx, trainP, prof, o.Trace)
			if err != nil {
				return err
			}
			co.Workers = runtime.GOMAXPROCS(0) // the result does not depend on it
			res, err := replay.Calibrate(ctx, in, co)
			if err != nil {
				return fmt.Errorf("calibrate: %w", err)
			}
			res.Profile.Name = s.Name + "-calibrated"
			y, err := res.Profile.YAML()
			if err != nil {
				return err
			}
			head := res.Describe(filepath.Base(o.Trace)) + "# Base profile: " + s.Cluster.Profile + "; the study's cluster.calibrate wrote it.\n"
			if err := atomicfile.WriteFile(filepath.Join(dir, CalibratedProfile), append([]byte(head), y...)); err != nil {
				return err
			}
			b, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				return err
			}
			return atomicfile.WriteFile(filepath.Join(dir, CalibrationFile), append(b, '\n'))
		}}, nil
}

// calibrated returns the study with the calibrate stage's profile in dir
// as its cluster.profile and that profile's inferences as its
// cluster.infer_*, or s itself when dir holds none (a dry run before the
// stage ran plans with the study's own profile).
func (s *Study) calibrated(dir string) (*Study, error) {
	path := filepath.Join(dir, CalibratedProfile)
	if !fileExists(path) {
		return s, nil
	}
	prof, err := sim.LoadProfile(path)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	c := *s
	c.Cluster.Profile = path
	c.Cluster.InferDependencies, c.Cluster.InferCapacity = prof.InferDependencies != nil, prof.InferCapacity != nil
	c.Cluster.Calibrate = false
	return &c, nil
}
