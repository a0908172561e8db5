package simtest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

func TestParse(t *testing.T) {
	src := `# a comment
cluster nodes=4 backfill=easy interval=10m window=1d resolution=30 maxtest=7 age=1 size=2 fairshare=3 maxage=2h halflife=1d uncapped=true agefrom=submit cancelled=run-zero limit_jobs=2 limit_nodes=3 minute=true
capacity at=100 nodes=2   # trailing comment
job id=a nodes=2 submit=5 limit=1h
job id=b user=3 nodes=1 submit=6 limit=60 run=30 after=a eligible=7 cancel=8 external=true
expect start a at=0
expect end b at=1m
expect left b at=8
expect never b
expect order a b
`
	scs, err := simtest.Parse("x.test", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.Nodes = 4
	cfg.Backfill = sim.Backfill{Flavour: sim.BackfillEASY, IntervalSec: 600, WindowSec: 86400, ResolutionSec: 30, MaxJobTest: 7}
	cfg.Priority = sim.Priority{AgeWeight: 1, SizeWeight: 2, FairShareWeight: 3, MaxAgeSec: 7200, DecayHalfLifeSec: 86400, AgeUncapped: true}
	cfg.AgeFromSubmit = true
	cfg.Cancelled = sim.CancelRunZero
	cfg.Limits = sim.Limits{MaxJobsPerUser: 2, MaxNodesPerUser: 3}
	cfg.MinuteRounding = true
	cfg.Capacity = []sim.CapacityStep{{At: 100, Nodes: 2}}
	want := []*simtest.Scenario{{
		Path: "x.test", Line: 2, Config: cfg,
		Jobs: []simtest.ScenarioJob{
			{Name: "a", Line: 4, Job: sim.Job{Name: "a", Nodes: 2, Submit: 5, LimitSec: 3600, RunSec: 3600, After: sim.NoJob}},
			{Name: "b", Line: 5, AfterName: "a", External: true,
				Job: sim.Job{Name: "b", User: 3, Nodes: 1, Submit: 6, LimitSec: 60, RunSec: 30, Eligible: 7, Cancel: 8, After: sim.NoJob}},
		},
		Expects: []simtest.Expect{
			{Line: 6, Kind: simtest.ExpectStart, Jobs: []string{"a"}, At: 0},
			{Line: 7, Kind: simtest.ExpectEnd, Jobs: []string{"b"}, At: 60},
			{Line: 8, Kind: simtest.ExpectLeft, Jobs: []string{"b"}, At: 8},
			{Line: 9, Kind: simtest.ExpectNever, Jobs: []string{"b"}},
			{Line: 10, Kind: simtest.ExpectOrder, Jobs: []string{"a", "b"}},
		},
	}}
	if diff := cmp.Diff(want, scs); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestParse_Profile(t *testing.T) {
	scs, err := simtest.Parse("p.test", strings.NewReader("cluster nodes=3 profile=mirage-compat\ncluster\n"))
	if err != nil {
		t.Fatal(err)
	}
	compat := sim.MirageCompat()
	compat.Nodes = 3
	if diff := cmp.Diff([]sim.Config{compat, sim.DefaultConfig()}, []sim.Config{scs[0].Config, scs[1].Config}); diff != "" {
		t.Errorf("configs (-want +got):\n%s", diff)
	}
}

func TestParse_Errors(t *testing.T) {
	const head = "cluster nodes=2\njob id=a limit=10\n"
	tests := []struct {
		Name  string
		Input string
		Line  int
		Err   error
		Msg   string // a substring of the message
	}{
		{"Empty", "# nothing\n", 1, simtest.ErrSyntax, "no cluster line"},
		{"JobBeforeCluster", "job id=a limit=1\n", 1, simtest.ErrSyntax, "before the first cluster"},
		{"UnknownDirective", head + "jbo id=b\n", 3, simtest.ErrSyntax, `unknown directive "jbo"`},
		{"UnknownClusterKey", "cluster nodes=2 flavour=easy\n", 1, simtest.ErrSyntax, `unknown key "flavour"`},
		{"BadFlavour", "cluster backfill=fast\n", 1, simtest.ErrSyntax, "backfill flavour"},
		{"BadCancelled", "cluster cancelled=drop\n", 1, simtest.ErrSyntax, "cancelled policy"},
		{"BadProfile", "cluster profile=slurm\n", 1, simtest.ErrSyntax, "sim profile"},
		{"BadBool", "cluster minute=yes\n", 1, simtest.ErrSyntax, "want true or false"},
		{"BadAgeFrom", "cluster agefrom=start\n", 1, simtest.ErrSyntax, "agefrom=start"},
		{"BadInt", "cluster nodes=two\n", 1, simtest.ErrSyntax, "nodes=two"},
		{"BadTime", head + "job id=b limit=1w\n", 3, simtest.ErrSyntax, "limit=1w"},
		{"NotKeyValue", head + "job id=b limit=10 nodes\n", 3, simtest.ErrSyntax, `field "nodes"`},
		{"EmptyValue", head + "job id=b limit=\n", 3, simtest.ErrSyntax, `field "limit="`},
		{"RepeatedKey", head + "job id=b limit=1 limit=2\n", 3, simtest.ErrSyntax, `key "limit" given twice`},
		{"NoID", head + "job limit=1\n", 3, simtest.ErrSyntax, "needs id="},
		{"NoLimit", head + "job id=b\n", 3, simtest.ErrSyntax, "needs limit="},
		{"DuplicateJob", head + "job id=a limit=1\n", 3, simtest.ErrDuplicateJob, "a"},
		{"AfterUnknown", head + "job id=b limit=1 after=c\n", 3, simtest.ErrUnknownJob, "after=c"},
		{"AfterLater", "cluster\njob id=b limit=1 after=c\njob id=c limit=1\n", 2, simtest.ErrUnknownJob, "after=c"},
		{"CapacityAfterJobs", head + "capacity at=1 nodes=1\n", 3, simtest.ErrSyntax, "before the jobs"},
		{"CapacityMissingNodes", "cluster\ncapacity at=1\n", 2, simtest.ErrSyntax, "needs at= and nodes="},
		{"ExpectUnknownVerb", head + "expect begin a at=1\n", 3, simtest.ErrSyntax, `unknown expectation "begin"`},
		{"ExpectUnknownJob", head + "expect start b at=1\n", 3, simtest.ErrUnknownJob, "b"},
		{"ExpectNoAt", head + "expect start a\n", 3, simtest.ErrSyntax, "want expect start JOB at=TIME"},
		{"ExpectWrongKey", head + "expect end a time=1\n", 3, simtest.ErrSyntax, `unknown key "time"`},
		{"ExpectNeverTwoJobs", head + "job id=b limit=1\nexpect never a b\n", 4, simtest.ErrSyntax, "want expect never JOB"},
		{"ExpectOrderOneJob", head + "expect order a\n", 3, simtest.ErrSyntax, "want expect order JOB JOB, then any more"},
		{"ExpectOrderKeyValue", head + "expect order a at=1\n", 3, simtest.ErrSyntax, `"at=1" where a job name belongs`},
		{"NamesScopedToScenario", head + "cluster\nexpect never a\n", 4, simtest.ErrUnknownJob, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			_, err := simtest.Parse("bad.test", strings.NewReader(tt.Input))
			var pe *simtest.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T), want a *ParseError", err, err)
			}
			if pe.Path != "bad.test" || pe.Line != tt.Line {
				t.Errorf("position = %s:%d\nwant       bad.test:%d", pe.Path, pe.Line, tt.Line)
			}
			if !errors.Is(err, tt.Err) {
				t.Errorf("err = %v\nwant wrapping %v", err, tt.Err)
			}
			if !strings.HasPrefix(err.Error(), pe.Path+":") || !strings.Contains(err.Error(), tt.Msg) {
				t.Errorf("message = %q\nwant it to start with the position and contain %q", err, tt.Msg)
			}
		})
	}
}

// TestScenario_Check makes every kind of expectation fail once, so a
// scenario runner that passes everything would be caught.
func TestScenario_Check(t *testing.T) {
	src := `cluster nodes=1 backfill=none age=0 size=0 fairshare=0
job id=a limit=100
job id=b limit=100
job id=g limit=100 cancel=50
expect start a at=0
expect start b at=100
expect end b at=200
expect left g at=50
expect never g
expect start a at=1
expect end a at=99
expect left a at=0
expect left g at=49
expect never a
expect order b a
expect start g at=0
`
	scs, err := simtest.Parse("chk.test", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := scs[0].Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range scs[0].Check(res) {
		got = append(got, e.Error())
	}
	want := []string{
		"chk.test:10: expect start a at=1: got start 0",
		"chk.test:11: expect end a at=99: got end 100",
		"chk.test:12: expect left a at=0: did not leave (start 0)",
		"chk.test:13: expect left g at=49: got left at 50",
		"chk.test:14: expect never a: got start 0",
		"chk.test:15: expect order b a: a started at 0, before its predecessor in the list (100)",
		"chk.test:16: expect start g at=0: got start -",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}

// TestScenario_Incomplete: a job that never finishes fails the scenario
// unless an "expect never" line names it.
func TestScenario_Incomplete(t *testing.T) {
	src := `cluster nodes=2 backfill=none age=0 size=0 fairshare=0
capacity at=10 nodes=1
job id=big nodes=2 submit=20 limit=100
job id=stuck nodes=2 submit=30 limit=100
expect never big
`
	scs, err := simtest.Parse("inc.test", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	res, err := scs[0].Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errs := scs[0].Check(res)
	if len(errs) != 1 || errs[0].Error() != "inc.test:4: job stuck neither finished nor left" {
		t.Errorf("Check = %v\nwant [inc.test:4: job stuck neither finished nor left]", errs)
	}
}

func TestScenario_RunErrors(t *testing.T) {
	tests := []struct {
		Name, Input string
		Err         error
	}{
		{"TooManyNodes", "cluster nodes=1\njob id=a nodes=2 limit=1\n", sim.ErrInfeasibleJob},
		{"BadConfig", "cluster nodes=0\njob id=a limit=1\n", sim.ErrConfig},
		{"TraceAfterExternal", "cluster\njob id=e limit=1 external=true\njob id=a limit=1 after=e\n", simtest.ErrUnknownJob},
		{"ExternalAfterLaterExternal", "cluster\njob id=e limit=1 submit=20 external=true\njob id=f limit=1 submit=10 after=e external=true\n", simtest.ErrUnknownJob},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			scs, err := simtest.Parse("run.test", strings.NewReader(tt.Input))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := scs[0].Run(context.Background()); !errors.Is(err, tt.Err) {
				t.Errorf("Run error = %v\nwant %v", err, tt.Err)
			}
		})
	}
}
