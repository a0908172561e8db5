package pipelines_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/trace"
)

// TestPropose_NeverRanCounts: study init's "never ran" is trace stats'
// (trace.Job.NeverStarted) over the jobs it says it counts: those with
// a submit time of the chains' partition, which the message names, so
// the two counts agree when trace stats is given the same jobs.
func TestPropose_NeverRanCounts(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	jobs := startUnknown(jobsEvery(t0, 60*24, time.Hour, 3*time.Hour, 3))
	for i := range jobs {
		j := &jobs[i]
		j.Partition = "big"
		if i%4 == 0 {
			j.Partition = "small"
			j.NNodes = 1
		}
		if i%10 == 0 { // never ran: no start, not StartUnknown
			j.StartUnknown, j.ElapsedSec = false, trace.Unknown
		}
	}
	// Jobs without a submit time (an SWF submit of -1) never ran either;
	// they are not in the study's count, and the message says so.
	for range 5 {
		j := trace.NewJob()
		j.Partition = "big"
		jobs = append(jobs, j)
	}
	_, err := pipelines.Propose(jobs, pipelines.ProposeOptions{Name: "x"})
	if !errors.Is(err, pipelines.ErrStudy) {
		t.Fatalf("Propose: %v, want ErrStudy", err)
	}
	var part []trace.Job
	for _, j := range jobs {
		if j.Partition == "big" && !j.Submit.IsZero() {
			part = append(part, j)
		}
	}
	st := trace.StatsOf(part)
	want := fmt.Sprintf("%d of the %d jobs with a submit time of partition big, where the chains run (trace stats counts every job of every partition) ran from a start it did not record (an SWF wait time of -1), %d never ran",
		st.StartUnknown, st.Jobs, st.CancelledPending)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("Propose error:\n%v\nwant it to contain\n%s", err, want)
	}
	if all := trace.StatsOf(jobs); all.CancelledPending == st.CancelledPending {
		t.Fatalf("the test's partition has all %d never-ran jobs: it cannot tell the counts apart", all.CancelledPending)
	}
}
