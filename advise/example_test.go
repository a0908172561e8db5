package advise_test

import (
	"context"
	"fmt"

	"github.com/mirage-hpc/mirage/advise"
)

// A deployment tool decides for its running job with a model directory
// and, in its tests, a fake source.
func ExampleAdvisor_Decide() {
	m, err := advise.Open("testdata/model-synth")
	if err != nil {
		fmt.Println(err)
		return
	}
	now := int64(1_000_000)
	src := &advise.StaticSource{Obs: advise.Observation{Now: now, Nodes: 4, Capacity: 4, Queue: []advise.Job{
		{ID: "10", User: "alice", State: advise.JobRunning, Nodes: 1, LimitSec: 7200, Submit: now - 4000, Start: now - 3600},
		{ID: "12", User: "bob", State: advise.JobPending, Nodes: 4, LimitSec: 3600, Submit: now - 600},
	}}}
	d, err := advise.New(m, src).Decide(context.Background(), "10")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Action, d.Reason, d.PRemainingSec, d.NextAsk-d.Time)
	// Output: wait model 3600 200
}
