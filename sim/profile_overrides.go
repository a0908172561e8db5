package sim

import (
	"errors"
	"fmt"
	"time"
)

// ErrOverride is wrapped by ProfileOverrides.Apply's errors: a setting
// that overrides a profile is out of range or unknown. The command line
// maps it to exit status 3.
var ErrOverride = errors.New("bad profile override")

// overrideError is an error of ProfileOverrides.Apply: its message is
// err's alone, and it wraps ErrOverride as well as err.
type overrideError struct{ err error }

func (e overrideError) Error() string   { return e.err.Error() }
func (e overrideError) Unwrap() []error { return []error{ErrOverride, e.err} }

func badOverride(format string, args ...any) error {
	return overrideError{fmt.Errorf(format, args...)}
}

// ProfileOverrides are the changes a caller makes to a simulator profile
// (the command line's sim flags). Each field has a value that keeps the
// profile's setting, given with it; KeepProfile returns them all. Errors
// name a setting by the flag that sets it (--max-jobs-per-user).
type ProfileOverrides struct {
	// PartitionNodes, when > 0, replaces Config.Nodes.
	PartitionNodes int
	// Backfill ("conservative", "easy", "none") and Cancelled ("leave",
	// "run-zero") replace the profile's when not empty.
	Backfill, Cancelled string
	// MaxJobsPerUser, MaxNodesPerUser, BfMaxJobTest and BfMaxJobUser
	// replace the profile's limits when >= 0 (0 = none); -1 keeps them.
	MaxJobsPerUser, MaxNodesPerUser, BfMaxJobTest, BfMaxJobUser int
	// InferDeps and InferCapacity turn the profile's inferences on (with
	// its settings, or the defaults: Profile.DependencyOptions,
	// Profile.CapacityOptions) or off; nil keeps the profile's.
	InferDeps, InferCapacity *bool
	// CapacityBucket (> 0; 0 keeps), CapacitySmooth and CapacityHeadroom
	// (nodes or buckets, >= 0; -1 keeps), CapacityMinPending (>= 0; -1s
	// keeps) and CapacityLookahead (true: the non-causal inference)
	// change the capacity inference when it is on; they are checked only
	// then.
	CapacityBucket                   time.Duration
	CapacitySmooth, CapacityHeadroom int
	CapacityMinPending               time.Duration
	CapacityLookahead                bool
}

// KeepProfile returns the overrides that keep every setting of the
// profile.
func KeepProfile() ProfileOverrides {
	return ProfileOverrides{MaxJobsPerUser: -1, MaxNodesPerUser: -1, BfMaxJobTest: -1, BfMaxJobUser: -1,
		CapacitySmooth: -1, CapacityHeadroom: -1, CapacityMinPending: -time.Second}
}

// Apply returns p with the overrides o, its configuration checked
// (Config.Validate). A bad override is an error wrapping ErrOverride (and
// the parse or validation error, if any) that names its flag.
func (o ProfileOverrides) Apply(p Profile) (Profile, error) {
	cfg := &p.Config
	if o.PartitionNodes > 0 {
		cfg.Nodes = o.PartitionNodes
	}
	var err error
	if o.Backfill != "" {
		if cfg.Backfill.Flavour, err = ParseFlavour(o.Backfill); err != nil {
			return p, overrideError{err}
		}
	}
	if o.Cancelled != "" {
		if cfg.Cancelled, err = ParseCancelPolicy(o.Cancelled); err != nil {
			return p, overrideError{err}
		}
	}
	for _, l := range []struct {
		flag string
		v    int
		dst  *int
	}{
		{"--max-jobs-per-user", o.MaxJobsPerUser, &cfg.Limits.MaxJobsPerUser},
		{"--max-nodes-per-user", o.MaxNodesPerUser, &cfg.Limits.MaxNodesPerUser},
		{"--bf-max-job-test", o.BfMaxJobTest, &cfg.Backfill.MaxJobTest},
		{"--bf-max-job-user", o.BfMaxJobUser, &cfg.Backfill.MaxJobUser},
	} {
		switch {
		case l.v < -1:
			return p, badOverride("%s %d: want -1 (the profile's), 0 (none) or a count", l.flag, l.v)
		case l.v >= 0:
			*l.dst = l.v
		}
	}
	if err := cfg.Validate(); err != nil {
		return p, overrideError{err}
	}
	if inferenceOn(o.InferDeps, p.InferDependencies != nil) {
		p.InferDependencies = p.DependencyOptions()
	} else {
		p.InferDependencies = nil
	}
	if !inferenceOn(o.InferCapacity, p.InferCapacity != nil) {
		p.InferCapacity = nil
		return p, nil
	}
	co, err := o.capacity(p)
	if err != nil {
		return p, err
	}
	p.InferCapacity = &co
	return p, nil
}

// inferenceOn is an inference's setting: set's value, or the profile's (was)
// when set is nil.
func inferenceOn(set *bool, was bool) bool {
	if set != nil {
		return *set
	}
	return was
}

// capacity returns the capacity inference of p (Profile.CapacityOptions)
// with o's capacity settings that do not keep the profile's. Nodes is
// left 0 (the partition size, when used).
func (o ProfileOverrides) capacity(p Profile) (CapacityOptions, error) {
	co := p.CapacityOptions(0)
	switch {
	case o.CapacityBucket != 0 && o.CapacityBucket < time.Second,
		o.CapacitySmooth < -1, o.CapacityHeadroom < -1, o.CapacityMinPending < -time.Second:
		return co, badOverride("--capacity-bucket %s, --capacity-smooth %d, --capacity-headroom %d, --capacity-min-pending %s: want a bucket of at least 1s (0 = the profile's) and the others >= 0 (-1, -1s = the profile's)",
			o.CapacityBucket, o.CapacitySmooth, o.CapacityHeadroom, o.CapacityMinPending)
	}
	if o.CapacityBucket > 0 {
		co.BucketSec = int64(o.CapacityBucket / time.Second)
	}
	if o.CapacitySmooth >= 0 {
		co.Smooth = o.CapacitySmooth
	}
	if o.CapacityHeadroom >= 0 {
		co.Headroom = o.CapacityHeadroom
	}
	if o.CapacityMinPending >= 0 {
		co.MinPendingSec = int64(o.CapacityMinPending / time.Second)
	}
	if o.CapacityLookahead {
		co.Causal = false
	}
	return co, nil
}
