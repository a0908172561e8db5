// Package simtest is importable test support for package sim: a Harness
// that records what the simulator decided (as its sim.Recorder) and checks
// safety invariants as it goes, job and cluster builders, and a runner for
// scenario files in the style of prometheus's promqltest.
//
// # Scenario files
//
// A scenario file (sim/testdata/*.test) is line-oriented text. Everything
// from '#' to the end of a line is a comment; blank lines are ignored.
// Every other line is a directive followed by fields separated by spaces;
// a field is key=value, with no spaces around '='. A key may appear once
// per line; unknown keys are errors.
//
//	cluster [key=value]...      starts a scenario (a file may hold several)
//	capacity at=TIME nodes=N    a capacity step, before the scenario's jobs
//	job id=NAME limit=DUR [key=value]...
//	expect start NAME at=TIME   NAME starts at TIME
//	expect end NAME at=TIME     NAME finishes (after running) at TIME
//	expect left NAME at=TIME    NAME leaves the queue without running at TIME
//	expect never NAME           NAME never starts
//	expect order NAME NAME...   all start, at non-decreasing times in this order
//
// TIME and DUR are integer seconds, optionally with a unit suffix s, m, h
// or d ("90", "15m", "2h"); times are Unix seconds, so a scenario's clock
// starts at 0 by convention. N and W are integers and numbers. BOOL is
// true or false.
//
// cluster keys (every key is optional; the base is sim.DefaultConfig, or
// the profile named by profile=, whatever the key order on the line):
//
//	profile=default|mirage-compat  the base configuration (sim.Profile)
//	nodes=N                        Config.Nodes
//	backfill=conservative|easy|none Backfill.Flavour
//	interval=DUR window=DUR resolution=DUR maxtest=N
//	                               Backfill.IntervalSec, WindowSec, ResolutionSec, MaxJobTest
//	age=W size=W fairshare=W       Priority.AgeWeight, SizeWeight, FairShareWeight
//	maxage=DUR halflife=DUR        Priority.MaxAgeSec, DecayHalfLifeSec
//	uncapped=BOOL                  Priority.AgeUncapped
//	agefrom=eligible|submit        Config.AgeFromSubmit
//	cancelled=leave|run-zero       Config.Cancelled
//	limit_jobs=N limit_nodes=N     Limits.MaxJobsPerUser, MaxNodesPerUser
//	minute=BOOL                    Config.MinuteRounding
//
// job keys (id and limit are required):
//
//	id=NAME        the job's name, unique in its scenario; also sim.Job.Name
//	user=N         user index (0)
//	nodes=N        whole nodes (1)
//	submit=TIME    submission (0)
//	limit=DUR      time limit
//	run=DUR        actual run time (the limit)
//	after=NAME     held until NAME has ended; NAME must be an earlier job line
//	eligible=TIME  begin time (0: at submission)
//	cancel=TIME    cancelled while pending at TIME (sim.Job.Cancel)
//	external=BOOL  added with Sim.Submit instead of given to sim.New (false)
//
// Trace jobs (external=false) get JobIDs 0, 1, ... in file order, so jobs
// submitted at the same second are ordered by their lines. External jobs
// get the following IDs in (submit, line) order: the runner runs the
// simulation to one second before each one's submit time, then submits it.
// A trace job may not wait for an external one.
//
// An expect line names jobs defined above it. Besides the expectations,
// the runner fails a scenario on any Harness invariant violation and on
// any job that neither finished nor left, unless an "expect never" line
// names it.
//
// A parse error is a *ParseError that names the file and line
// ("fifo.test:12: syntax error: unknown key ...") and wraps ErrSyntax,
// ErrUnknownJob or ErrDuplicateJob.
//
// # Example
//
//	# comment
//	cluster nodes=4 backfill=conservative interval=600 resolution=60 age=0 size=0 fairshare=0
//	job id=a nodes=2 submit=0 limit=3600 run=1800
//	job id=b nodes=4 submit=10 limit=600 after=a
//	expect start a at=0
//	expect start b at=1800   # a ended at 1800
//	expect end a at=1800
package simtest
