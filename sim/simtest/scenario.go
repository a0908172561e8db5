package simtest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/sim"
)

// Sentinel errors wrapped by ParseError.
var (
	// ErrSyntax: an unknown directive or key, a malformed field or value,
	// a repeated key, a missing required key, or a line out of place.
	ErrSyntax = errors.New("syntax error")
	// ErrUnknownJob: a job name that no earlier job line of the scenario
	// defines.
	ErrUnknownJob = errors.New("unknown job")
	// ErrDuplicateJob: a job name defined twice in one scenario.
	ErrDuplicateJob = errors.New("duplicate job")
)

// ParseError is a scenario-file error with its position. Line numbers are
// 1-indexed.
type ParseError struct {
	Path string
	Line int
	Err  error
}

// Error returns "path:line: message".
func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }

// Unwrap returns the underlying error (ErrSyntax, ErrUnknownJob or
// ErrDuplicateJob, possibly wrapped).
func (e *ParseError) Unwrap() error { return e.Err }

// Scenario is one cluster and its jobs and expectations: everything from
// a cluster line to the next one (or the end of the file).
type Scenario struct {
	// Path is the file the scenario came from; Line is its cluster line.
	Path string
	Line int
	// Config is the cluster line's configuration, capacity steps
	// included.
	Config sim.Config
	// Jobs are the scenario's jobs in file order.
	Jobs []ScenarioJob
	// Expects are the expectations in file order.
	Expects []Expect
}

// ScenarioJob is one job line.
type ScenarioJob struct {
	Name string
	Line int
	// Job is the job; its After is NoJob, see AfterName.
	Job sim.Job
	// AfterName names the predecessor ("" for none); the runner resolves
	// it to a JobID.
	AfterName string
	// External jobs are added with Sim.Submit instead of given to New.
	External bool
}

// ExpectKind is the verb of an expect line.
type ExpectKind uint8

const (
	// ExpectStart: the job starts at At.
	ExpectStart ExpectKind = iota
	// ExpectEnd: the job finishes at At.
	ExpectEnd
	// ExpectLeft: the job leaves the queue without running at At.
	ExpectLeft
	// ExpectNever: the job never starts.
	ExpectNever
	// ExpectOrder: every job starts, and start times do not decrease in
	// the order given.
	ExpectOrder
)

var expectNames = [...]string{ExpectStart: "start", ExpectEnd: "end", ExpectLeft: "left", ExpectNever: "never", ExpectOrder: "order"}

// String returns the verb as written in scenario files.
func (k ExpectKind) String() string {
	if int(k) < len(expectNames) {
		return expectNames[k]
	}
	return fmt.Sprintf("ExpectKind(%d)", k)
}

// Expect is one expect line.
type Expect struct {
	Line int
	Kind ExpectKind
	// Jobs holds one name, or several for ExpectOrder.
	Jobs []string
	// At is the expected time for ExpectStart, ExpectEnd and ExpectLeft.
	At int64
}

// String formats the expectation as written ("expect start a at=0").
func (e Expect) String() string {
	s := "expect " + e.Kind.String() + " " + strings.Join(e.Jobs, " ")
	switch e.Kind {
	case ExpectStart, ExpectEnd, ExpectLeft:
		s += fmt.Sprintf(" at=%d", e.At)
	}
	return s
}

// ParseFile reads the scenarios of a file; see the package documentation
// for the grammar.
func ParseFile(path string) ([]*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

// Parse reads scenarios from r; path is used in errors only. It returns
// the first error, a *ParseError.
func Parse(path string, r io.Reader) ([]*Scenario, error) {
	p := parser{path: path}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, &ParseError{Path: path, Line: p.line, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(p.out) == 0 {
		return nil, &ParseError{Path: path, Line: p.line, Err: fmt.Errorf("%w: no cluster line", ErrSyntax)}
	}
	return p.out, nil
}

type parser struct {
	path  string
	line  int
	out   []*Scenario
	cur   *Scenario
	names map[string]bool
}

func (p *parser) parseLine(text string) error {
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	f := strings.Fields(text)
	if len(f) == 0 {
		return nil
	}
	if f[0] != "cluster" && p.cur == nil {
		return fmt.Errorf("%w: %q before the first cluster line", ErrSyntax, f[0])
	}
	switch f[0] {
	case "cluster":
		return p.cluster(f[1:])
	case "capacity":
		return p.capacity(f[1:])
	case "job":
		return p.job(f[1:])
	case "expect":
		return p.expect(f[1:])
	}
	return fmt.Errorf("%w: unknown directive %q (want cluster, capacity, job or expect)", ErrSyntax, f[0])
}

// fields splits key=value fields, refusing repeats and keys not in allowed.
func fields(f []string, allowed ...string) (map[string]string, error) {
	kv := make(map[string]string, len(f))
	for _, s := range f {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%w: field %q: want key=value", ErrSyntax, s)
		}
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			return nil, fmt.Errorf("%w: unknown key %q (want one of %s)", ErrSyntax, k, strings.Join(allowed, ", "))
		}
		if _, dup := kv[k]; dup {
			return nil, fmt.Errorf("%w: key %q given twice", ErrSyntax, k)
		}
		kv[k] = v
	}
	return kv, nil
}

// parseTime parses integer seconds with an optional unit suffix s, m, h
// or d ("90", "15m", "2h", "-1d").
func parseTime(key, v string) (int64, error) {
	mult := int64(1)
	num := v
	switch v[len(v)-1] {
	case 's':
		num = v[:len(v)-1]
	case 'm':
		mult, num = 60, v[:len(v)-1]
	case 'h':
		mult, num = 3600, v[:len(v)-1]
	case 'd':
		mult, num = 86400, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%s: want integer seconds, optionally with unit s, m, h or d", ErrSyntax, key, v)
	}
	return n * mult, nil
}

func parseInt(key, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%s: want an integer", ErrSyntax, key, v)
	}
	return n, nil
}

func parseFloat(key, v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%s: want a number", ErrSyntax, key, v)
	}
	return x, nil
}

func parseBool(key, v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%w: %s=%s: want true or false", ErrSyntax, key, v)
}

var clusterKeys = []string{"profile", "nodes", "backfill", "interval", "window", "resolution", "maxtest",
	"age", "size", "fairshare", "maxage", "uncapped", "halflife", "agefrom", "cancelled",
	"limit_jobs", "limit_nodes", "minute"}

func (p *parser) cluster(f []string) error {
	kv, err := fields(f, clusterKeys...)
	if err != nil {
		return err
	}
	prof, err := sim.LoadProfile(kv["profile"])
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	cfg := prof.Config
	for _, k := range clusterKeys[1:] { // fixed order: profile first
		v, ok := kv[k]
		if !ok {
			continue
		}
		if err := setCluster(&cfg, k, v); err != nil {
			return err
		}
	}
	p.cur = &Scenario{Path: p.path, Line: p.line, Config: cfg}
	p.out = append(p.out, p.cur)
	p.names = map[string]bool{}
	return nil
}

func setCluster(cfg *sim.Config, k, v string) error {
	var err error
	pr, bf := &cfg.Priority, &cfg.Backfill
	switch k {
	case "nodes":
		cfg.Nodes, err = parseInt(k, v)
	case "backfill":
		bf.Flavour, err = sim.ParseFlavour(v)
	case "interval":
		bf.IntervalSec, err = parseTime(k, v)
	case "window":
		bf.WindowSec, err = parseTime(k, v)
	case "resolution":
		bf.ResolutionSec, err = parseTime(k, v)
	case "maxtest":
		bf.MaxJobTest, err = parseInt(k, v)
	case "age":
		pr.AgeWeight, err = parseFloat(k, v)
	case "size":
		pr.SizeWeight, err = parseFloat(k, v)
	case "fairshare":
		pr.FairShareWeight, err = parseFloat(k, v)
	case "maxage":
		pr.MaxAgeSec, err = parseTime(k, v)
	case "halflife":
		pr.DecayHalfLifeSec, err = parseTime(k, v)
	case "uncapped":
		pr.AgeUncapped, err = parseBool(k, v)
	case "agefrom":
		switch v {
		case "submit", "eligible":
			cfg.AgeFromSubmit = v == "submit"
		default:
			err = fmt.Errorf("%w: agefrom=%s: want submit or eligible", ErrSyntax, v)
		}
	case "cancelled":
		cfg.Cancelled, err = sim.ParseCancelPolicy(v)
	case "limit_jobs":
		cfg.Limits.MaxJobsPerUser, err = parseInt(k, v)
	case "limit_nodes":
		cfg.Limits.MaxNodesPerUser, err = parseInt(k, v)
	case "minute":
		cfg.MinuteRounding, err = parseBool(k, v)
	}
	if err != nil && !errors.Is(err, ErrSyntax) {
		err = fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	return err
}

func (p *parser) capacity(f []string) error {
	kv, err := fields(f, "at", "nodes")
	if err != nil {
		return err
	}
	if kv["at"] == "" || kv["nodes"] == "" {
		return fmt.Errorf("%w: capacity needs at= and nodes=", ErrSyntax)
	}
	at, err := parseTime("at", kv["at"])
	if err != nil {
		return err
	}
	n, err := parseInt("nodes", kv["nodes"])
	if err != nil {
		return err
	}
	if len(p.cur.Jobs) > 0 {
		return fmt.Errorf("%w: capacity lines must come before the jobs", ErrSyntax)
	}
	p.cur.Config.Capacity = append(p.cur.Config.Capacity, sim.CapacityStep{At: at, Nodes: n})
	return nil
}

var jobKeys = []string{"id", "user", "nodes", "submit", "limit", "timemin", "run", "after", "eligible", "cancel", "external"}

func (p *parser) job(f []string) error {
	kv, err := fields(f, jobKeys...)
	if err != nil {
		return err
	}
	name := kv["id"]
	switch {
	case name == "":
		return fmt.Errorf("%w: job needs id=", ErrSyntax)
	case kv["limit"] == "":
		return fmt.Errorf("%w: job %s needs limit=", ErrSyntax, name)
	case p.names[name]:
		return fmt.Errorf("%w: %s", ErrDuplicateJob, name)
	}
	sj := ScenarioJob{Name: name, Line: p.line, Job: sim.Job{Name: name, Nodes: 1, After: sim.NoJob}}
	j := &sj.Job
	for _, k := range jobKeys[1:] {
		v, ok := kv[k]
		if !ok {
			continue
		}
		var n int
		switch k {
		case "user":
			n, err = parseInt(k, v)
			j.User = int32(n)
		case "nodes":
			n, err = parseInt(k, v)
			j.Nodes = int32(n)
		case "submit":
			j.Submit, err = parseTime(k, v)
		case "limit":
			j.LimitSec, err = parseTime(k, v)
		case "timemin":
			j.TimeMinSec, err = parseTime(k, v)
		case "run":
			j.RunSec, err = parseTime(k, v)
		case "eligible":
			j.Eligible, err = parseTime(k, v)
		case "cancel":
			j.Cancel, err = parseTime(k, v)
		case "external":
			sj.External, err = parseBool(k, v)
		case "after":
			if !p.names[v] {
				return fmt.Errorf("%w: after=%s (a predecessor must be defined before its dependents)", ErrUnknownJob, v)
			}
			sj.AfterName = v
		}
		if err != nil {
			return err
		}
	}
	if _, ok := kv["run"]; !ok {
		j.RunSec = j.LimitSec
	}
	p.names[name] = true
	p.cur.Jobs = append(p.cur.Jobs, sj)
	return nil
}

func (p *parser) expect(f []string) error {
	if len(f) < 2 {
		return fmt.Errorf("%w: want expect VERB JOB [JOB]... [at=TIME]", ErrSyntax)
	}
	e := Expect{Line: p.line}
	switch f[0] {
	case "start":
		e.Kind = ExpectStart
	case "end":
		e.Kind = ExpectEnd
	case "left":
		e.Kind = ExpectLeft
	case "never":
		e.Kind = ExpectNever
	case "order":
		e.Kind = ExpectOrder
	default:
		return fmt.Errorf("%w: unknown expectation %q (want start, end, left, never or order)", ErrSyntax, f[0])
	}
	args := f[1:]
	switch e.Kind {
	case ExpectStart, ExpectEnd, ExpectLeft:
		if len(args) != 2 {
			return fmt.Errorf("%w: want expect %s JOB at=TIME", ErrSyntax, e.Kind)
		}
		kv, err := fields(args[1:], "at")
		if err != nil {
			return err
		}
		if e.At, err = parseTime("at", kv["at"]); err != nil {
			return err
		}
		args = args[:1]
	case ExpectNever:
		if len(args) != 1 {
			return fmt.Errorf("%w: want expect never JOB", ErrSyntax)
		}
	case ExpectOrder:
		if len(args) < 2 {
			return fmt.Errorf("%w: want expect order JOB JOB, then any more", ErrSyntax)
		}
	}
	for _, name := range args {
		if strings.Contains(name, "=") {
			return fmt.Errorf("%w: %q where a job name belongs", ErrSyntax, name)
		}
		if !p.names[name] {
			return fmt.Errorf("%w: %s", ErrUnknownJob, name)
		}
	}
	e.Jobs = args
	p.cur.Expects = append(p.cur.Expects, e)
	return nil
}
