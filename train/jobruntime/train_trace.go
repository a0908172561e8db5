package jobruntime

import (
	"context"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/digest"
	"github.com/mirage-hpc/mirage/trace"
)

// TrainTrace trains on the trace file at path (Train) with the periods
// of protocols: the training period is train's (ProtocolPeriod), ending
// where valid's begins when valid is not nil; valid's is the validation
// period (nil: none). The zone is train's and the trace's SHA-256 goes
// into the manifest; opts' periods, Zone and TraceDigest are replaced. A
// protocol whose period does not parse is an error wrapping ErrOptions.
// It is the one call of `mirage train --model runtime`.
func TrainTrace(ctx context.Context, path, dir string, train features.Protocol, valid *features.Protocol, opts Options) (*Result, error) {
	var err error
	if opts.TrainFrom, opts.TrainTo, err = ProtocolPeriod(train); err != nil {
		return nil, err
	}
	opts.ValidFrom, opts.ValidTo = 0, 0
	if valid != nil {
		if opts.ValidFrom, opts.ValidTo, err = ProtocolPeriod(*valid); err != nil {
			return nil, err
		}
		opts.TrainTo = min(opts.TrainTo, opts.ValidFrom) // the training period ends where validation begins
	}
	opts.Zone = train.TZ
	jobs, err := trace.ReadAllContext(ctx, path)
	if err != nil {
		return nil, err
	}
	if opts.TraceDigest, err = digest.File(path); err != nil {
		return nil, err
	}
	return Train(ctx, jobs, dir, opts)
}
