package evaluate

import (
	"context"
	"io"
	"log/slog"
	"runtime"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/trace"
)

// ForecastFitOptions configure FitForecast.
type ForecastFitOptions struct {
	// Train are TrainForecast's options; FitForecast sets Features and
	// Protocol from the protocol, Workers 0 to GOMAXPROCS, and Progress
	// (when nil) to an Info line on Logger every 20 windows.
	Train ForecastTrainOptions
	// AllowSkip and PartitionFlag judge how the trace fits the protocol's
	// partition (sim.Fit.Check: PartitionFlag names the setting that sizes
	// it in the message).
	AllowSkip     bool
	PartitionFlag string
	// Logger receives the fit's warnings and the progress (nil: discard).
	Logger *slog.Logger
}

// ForecastFit is what FitForecast wrote: the manifest and the chain
// sizes (nodes) of the training windows.
type ForecastFit struct {
	Manifest   *ForecastManifest
	ChainNodes []int
}

// FitForecast reads the trace file at path, checks how it fits p's
// partition (an error wrapping sim.ErrUnfit), prepares p's training
// windows (features.ErrOptions), chooses the forecast's τ and the
// runtime estimate's margin on them with the run-time model in rtDir
// (TrainForecast) and writes dir/forecast.json. It is the one call of
// `mirage train --model forecast`.
func FitForecast(ctx context.Context, path string, p features.Protocol, rtDir, dir string, o ForecastFitOptions) (*ForecastFit, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	tjobs, err := trace.ReadAllContext(ctx, path)
	if err != nil {
		return nil, err
	}
	f, err := p.Fit(tjobs)
	if err != nil {
		return nil, err
	}
	warnings, err := f.Check(o.AllowSkip, o.PartitionFlag)
	for _, w := range warnings {
		log.Warn(w)
	}
	if err != nil {
		return nil, err
	}
	jobs, fo, err := p.Prepare(tjobs)
	if err != nil {
		return nil, err
	}
	to := o.Train
	to.Features, to.Protocol = fo, p.Name
	if to.Workers <= 0 {
		to.Workers = runtime.GOMAXPROCS(0)
	}
	if to.Progress == nil {
		to.Progress = func(done, total int) {
			if done%20 == 0 || done == total {
				log.Info("forecast", "windows", done, "of", total)
			}
		}
	}
	m, err := TrainForecast(ctx, tjobs, jobs, rtDir, to)
	if err != nil {
		return nil, err
	}
	if err := WriteForecastManifest(dir, m); err != nil {
		return nil, err
	}
	return &ForecastFit{Manifest: m, ChainNodes: fo.ChainNodes}, nil
}
