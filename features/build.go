package features

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/mirage-hpc/mirage/internal/workpool"
	"github.com/mirage-hpc/mirage/sim"
)

// Samples is a labelled sample set, column-major: row i of every slice is
// one (window, chain size, probe). Rows are ordered by chain size (in
// Options.ChainNodes order), then window, then probe time.
type Samples struct {
	// Names are the feature names, Features' order (Names()).
	Names []string
	// WindowID is the window index, 0-based, the same for every chain size.
	WindowID []int32
	// WindowStart is the window's start, Unix seconds.
	WindowStart []int64
	// ChainNodes is the nodes of P and of Q.
	ChainNodes []int32
	// ProbeTime is Q's submission time, Unix seconds.
	ProbeTime []int64
	// Features[f][i] is feature f of row i.
	Features [][]float64
	// LabelRSec is Q.start - P.end in seconds (> 0: interruption).
	LabelRSec []int64
	// LabelWaitSec is Q.start - Q.submit in seconds.
	LabelWaitSec []int64
	// Weight is the row's training weight: every (window, chain size)
	// weighs the same in total, and the mean weight is 1. Nil means 1.
	Weight []float64
}

// Len returns the number of rows.
func (s *Samples) Len() int { return len(s.ProbeTime) }

// Summary reports what Build did.
type Summary struct {
	// Windows is the number of windows per chain size.
	Windows int `json:"windows"`
	// ChainSizes is the number of chain sizes.
	ChainSizes int `json:"chain_sizes"`
	// Samples is the number of rows.
	Samples int `json:"samples"`
	// Interrupted counts rows with r > 0; InterruptedShare is its share.
	Interrupted      int     `json:"interrupted"`
	InterruptedShare float64 `json:"interrupted_share"`
	// MeanRSec is the mean of r in seconds.
	MeanRSec float64 `json:"mean_r_sec"`
}

// Build simulates opts.Windows windows for each chain size of jobs (as
// sim.FromTrace makes them; not changed) and returns the labelled samples.
// Windows run on opts.Workers goroutines; the result is the same for any
// number. It returns an error wrapping ErrOptions for bad options, the
// first window's error (in row order) otherwise, or ctx's error.
func Build(ctx context.Context, jobs []sim.Job, opts Options) (Samples, Summary, error) {
	if err := opts.normalise(); err != nil {
		return Samples{}, Summary{}, err
	}
	if err := opts.checkRunTimes(len(jobs)); err != nil {
		return Samples{}, Summary{}, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var user int32
	for i := range jobs {
		user = max(user, jobs[i].User+1)
	}
	units := len(opts.ChainNodes) * opts.Windows
	results := make([]unitResult, units)
	errs := workpool.Run(ctx, opts.Workers, units, func(ctx context.Context, u int) (err error) {
		w, nodes := u%opts.Windows, opts.ChainNodes[u/opts.Windows]
		if results[u], err = safeRunWindow(ctx, jobs, &opts, w, nodes, user); err != nil {
			return fmt.Errorf("window %d (chain of %d nodes): %w", w, nodes, err)
		}
		return nil
	}, opts.Progress)
	if err := firstError(errs); err != nil {
		return Samples{}, Summary{}, err
	}
	if err := ctx.Err(); err != nil {
		return Samples{}, Summary{}, err
	}
	s := assemble(results, opts.FeatureNames())
	sum := summarise(&s, opts.Windows, len(opts.ChainNodes))
	log.Info("features built", "windows", sum.Windows, "chain_sizes", sum.ChainSizes, "samples", sum.Samples)
	return s, sum, nil
}

// safeRunWindow runs a window, turning a panic into an error with the
// stack.
func safeRunWindow(ctx context.Context, jobs []sim.Job, opts *Options, w, nodes int, user int32) (res unitResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return runWindow(ctx, jobs, opts, w, nodes, user, false)
}

// firstError returns the first error in row order that is not a
// cancellation caused by another window's error, or else the first error.
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// assemble concatenates the windows' rows into column-major samples with
// the feature columns names (each row len(names) values).
func assemble(results []unitResult, names []string) Samples {
	width := len(names)
	n := 0
	for i := range results {
		n += len(results[i].probes)
	}
	s := Samples{
		Names:        names,
		WindowID:     make([]int32, 0, n),
		WindowStart:  make([]int64, 0, n),
		ChainNodes:   make([]int32, 0, n),
		ProbeTime:    make([]int64, 0, n),
		Features:     make([][]float64, width),
		LabelRSec:    make([]int64, 0, n),
		LabelWaitSec: make([]int64, 0, n),
		Weight:       make([]float64, 0, n),
	}
	for f := range s.Features {
		s.Features[f] = make([]float64, 0, n)
	}
	for _, r := range results {
		for k, t := range r.probes {
			s.WindowID = append(s.WindowID, int32(r.window))
			s.WindowStart = append(s.WindowStart, r.start)
			s.ChainNodes = append(s.ChainNodes, int32(r.nodes))
			s.ProbeTime = append(s.ProbeTime, t)
			row := r.feats[k*width : (k+1)*width]
			for f := range s.Features {
				s.Features[f] = append(s.Features[f], row[f])
			}
			s.LabelRSec = append(s.LabelRSec, r.rSec[k])
			s.LabelWaitSec = append(s.LabelWaitSec, r.wait[k])
			s.Weight = append(s.Weight, float64(n)/float64(len(results))/float64(len(r.probes)))
		}
	}
	return s
}

func summarise(s *Samples, windows, sizes int) Summary {
	sum := Summary{Windows: windows, ChainSizes: sizes, Samples: s.Len()}
	var total float64
	for _, r := range s.LabelRSec {
		if r > 0 {
			sum.Interrupted++
		}
		total += float64(r)
	}
	if sum.Samples > 0 {
		sum.InterruptedShare = float64(sum.Interrupted) / float64(sum.Samples)
		sum.MeanRSec = total / float64(sum.Samples)
	}
	return sum
}
