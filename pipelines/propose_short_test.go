package pipelines

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/trace"
)

// featuresProtocol is a training period of n windows every stride from
// t0 (UTC).
func featuresProtocol(t0 time.Time, n int, stride, warmup, workload time.Duration) features.Protocol {
	return features.Protocol{Start: t0.Format("2006-01-02T15:04:05"), TZ: "UTC", Windows: n, Interval: stride, Warmup: warmup, Workload: workload}
}

// shortTrace is a trace of hours hours: a 1-node job of limit limit
// submitted every hour, running an hour.
func shortTrace(hours int, limit time.Duration) []trace.Job {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var jobs []trace.Job
	for i := range hours {
		j := trace.NewJob()
		j.JobID = "j"
		j.Submit = t0.Add(time.Duration(i) * time.Hour)
		j.Start, j.End = j.Submit, j.Submit.Add(time.Hour)
		j.NNodes, j.TimelimitSec = 1, int64(limit/time.Second)
		jobs = append(jobs, j)
	}
	return jobs
}

// TestPropose_ShortTrace: a 647 h trace, too short for the default
// 168 h window in both periods, gets shorter windows and as many CV
// folds as its training windows make, and the study passes the
// preflight's fold check (the models' study asks for 5).
func TestPropose_ShortTrace(t *testing.T) {
	synth, _, err := Builtin("synth")
	if err != nil {
		t.Fatal(err)
	}
	jobs := shortTrace(647, 12*time.Hour)
	p, err := Propose(jobs, ProposeOptions{Name: "short", ModelsFrom: synth})
	if err != nil {
		t.Fatalf("Propose: %v", err)
	}
	s := p.Study
	if time.Duration(s.Periods.Warmup) >= proposeWarmup || s.Periods.Train.Windows < 1 || s.Periods.Validation.Windows < 1 || p.Problem != "" {
		t.Fatalf("periods %+v, problem %q: want shorter windows in both periods", s.Periods, p.Problem)
	}
	if got := strings.Join(p.Notes, "\n"); !strings.Contains(got, "too short for 48h and 120h in both periods") {
		t.Errorf("notes do not say why the windows are short:\n%s", got)
	}
	trainP, _, err := s.Protocols()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkFolds(trainP, cvFolds(s.Budget)); err != nil {
		t.Errorf("the proposed study fails the fold check: %v", err)
	}
}

// TestPlanWindows_Folds: the plan keeps the models' folds when the
// training windows make them, takes fewer when there are fewer windows
// than folds, and the preflight's fold check names the folds that work.
func TestPlanWindows_Folds(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	p := planWindows(t0, t0.Add(60*24*time.Hour), time.UTC, 0.7, 12*3600, 5)
	if p.problem != "" || p.folds != 5 || p.shape != proposeShapes[0] {
		t.Errorf("60 days: %+v, want the default shape and 5 folds", p)
	}
	// 4 windows 100 h apart make 4 folds of one window, not 5.
	if !foldsFit(t0, 4, 100*time.Hour, 42*time.Hour, 4) || foldsFit(t0, 4, 100*time.Hour, 42*time.Hour, 5) {
		t.Error("foldsFit: 4 windows 100h apart should make 4 folds 42h apart and not 5")
	}
	err := checkFolds(featuresProtocol(t0, 4, 100*time.Hour, 12*time.Hour, 30*time.Hour), 5)
	if err == nil || !strings.Contains(err.Error(), "set budget.cv_folds: 4, the most they make") {
		t.Errorf("checkFolds: %v, want it to name budget.cv_folds: 4", err)
	}
	if err := checkFolds(featuresProtocol(t0, 4, 100*time.Hour, 12*time.Hour, 30*time.Hour), 4); err != nil {
		t.Errorf("checkFolds with 4 folds: %v", err)
	}
}

// TestPropose_TooShortProblem: a trace too short for any window gets the
// study with its problem stated (what to edit), the periods that do not
// fit at 0 windows, which the study's check then names; and an error.
func TestPropose_TooShortProblem(t *testing.T) {
	p, err := Propose(shortTrace(100, 48*time.Hour), ProposeOptions{Name: "tiny"})
	if !errors.Is(err, ErrStudy) || !errors.Is(err, ErrTraceFit) || !strings.Contains(err.Error(), "the trace spans 99h") {
		t.Fatalf("Propose error %v, want ErrStudy and ErrTraceFit naming the span", err)
	}
	if p == nil || !strings.Contains(p.Problem, "edit periods") || !strings.Contains(p.Problem, "no shorter window fits a 48h chain") {
		t.Fatalf("proposal %+v: want the problem and what to edit", p)
	}
	if verr := p.Study.Validate(); verr == nil || !strings.Contains(verr.Error(), "windows 0") {
		t.Errorf("Validate of the problem study: %v, want it to name the period with 0 windows", verr)
	}
}
