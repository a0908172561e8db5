package simtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// Result is a scenario run: the Harness and the IDs the jobs got.
type Result struct {
	Harness *Harness
	// IDs maps job names to JobIDs.
	IDs map[string]sim.JobID
}

// Run simulates the scenario to its end. Trace jobs get IDs in file
// order and are given to sim.New; external jobs are then added in
// (submit, file) order with Sim.Submit, each once the simulation has run
// to one second before its submit time, and get the following IDs. It
// returns an error when the simulator refuses the configuration or a job,
// or ctx ends first.
func (sc *Scenario) Run(ctx context.Context) (*Result, error) {
	res := &Result{IDs: make(map[string]sim.JobID, len(sc.Jobs))}
	var trace []sim.Job
	var ext []ScenarioJob
	for _, sj := range sc.Jobs {
		if sj.External {
			ext = append(ext, sj)
			continue
		}
		res.IDs[sj.Name] = sim.JobID(len(trace))
		trace = append(trace, sj.Job)
	}
	for _, sj := range sc.Jobs {
		if sj.External || sj.AfterName == "" {
			continue
		}
		pred, ok := res.IDs[sj.AfterName]
		if !ok {
			return nil, fmt.Errorf("%s:%d: %w: after=%s: a trace job cannot wait for an external one", sc.Path, sj.Line, ErrUnknownJob, sj.AfterName)
		}
		trace[res.IDs[sj.Name]].After = pred
	}
	h, err := NewHarness(sc.Config, trace)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", sc.Path, sc.Line, err)
	}
	res.Harness = h
	slices.SortStableFunc(ext, func(a, b ScenarioJob) int { return cmp.Compare(a.Job.Submit, b.Job.Submit) })
	for _, sj := range ext {
		if err := h.Sim.RunUntil(ctx, sj.Job.Submit-1); err != nil {
			return res, err
		}
		j := sj.Job
		if sj.AfterName != "" {
			id, ok := res.IDs[sj.AfterName]
			if !ok {
				return res, fmt.Errorf("%s:%d: %w: after=%s is external and submitted later", sc.Path, sj.Line, ErrUnknownJob, sj.AfterName)
			}
			j.After = id
		}
		id, err := h.Submit(j)
		if err != nil {
			return res, fmt.Errorf("%s:%d: %w", sc.Path, sj.Line, err)
		}
		res.IDs[sj.Name] = id
	}
	return res, h.Run(ctx)
}

// Check returns the failed expectations of a run, each as
// "path:line: expect ...: got ...", then the Harness's invariant
// violations, including jobs that neither finished nor left unless an
// "expect never" line names them.
func (sc *Scenario) Check(res *Result) []error {
	h := res.Harness
	var errs []error
	failf := func(e Expect, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s: "+format, append([]any{sc.Path, e.Line, e}, args...)...))
	}
	never := map[string]bool{}
	for _, e := range sc.Expects {
		id := res.IDs[e.Jobs[0]]
		start, started := h.Start(id)
		switch e.Kind {
		case ExpectStart:
			if !started || start != e.At {
				failf(e, "got start %s", fmtTime(start))
			}
		case ExpectEnd:
			if end, ok := h.End(id); !ok || end != e.At {
				failf(e, "got end %s", fmtTime(end))
			}
		case ExpectLeft:
			if at, ok := h.LeftAt(id); !ok || at != e.At {
				if ok {
					failf(e, "got left at %d", at)
				} else {
					failf(e, "did not leave (start %s)", fmtTime(start))
				}
			}
		case ExpectNever:
			never[e.Jobs[0]] = true
			if started {
				failf(e, "got start %d", start)
			}
		case ExpectOrder:
			prev := NotYet
			for _, name := range e.Jobs {
				t, ok := h.Start(res.IDs[name])
				if !ok {
					failf(e, "%s never started", name)
					break
				}
				if t < prev {
					failf(e, "%s started at %d, before its predecessor in the list (%d)", name, t, prev)
					break
				}
				prev = t
			}
		}
	}
	if err := h.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s:%d: %w", sc.Path, sc.Line, err))
	}
	for _, sj := range sc.Jobs {
		id := res.IDs[sj.Name]
		_, ended := h.End(id)
		_, left := h.LeftAt(id)
		if !ended && !left && !never[sj.Name] {
			errs = append(errs, fmt.Errorf("%s:%d: job %s neither finished nor left", sc.Path, sj.Line, sj.Name))
		}
	}
	return errs
}

// RunTimeout bounds each scenario run in RunFile, so a simulator that
// never stops fails the test instead of hanging it.
var RunTimeout = 10 * time.Second

// RunFile parses a scenario file and runs each of its scenarios as a
// subtest named after the file and its cluster line ("fifo.test:3"),
// reporting every failed expectation and invariant, with the schedule.
func RunFile(t *testing.T, path string) {
	t.Helper()
	scs, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		t.Run(fmt.Sprintf("%s:%d", filepath.Base(path), sc.Line), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
			defer cancel()
			res, err := sc.Run(ctx)
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) && res != nil {
					t.Fatalf("%s:%d: simulation did not finish within %v:\n%s", sc.Path, sc.Line, RunTimeout, res.Harness.Table())
				}
				t.Fatal(err)
			}
			if errs := sc.Check(res); len(errs) > 0 {
				for _, e := range errs {
					t.Error(e)
				}
				t.Logf("schedule:\n%s", res.Harness.Table())
			}
		})
	}
}
