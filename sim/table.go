package sim

import "math"

// job is a Job as the simulator holds it: the same fields, with the name
// moved to the table's nameTable, so that the job table holds no pointer
// and a garbage collection does not scan it (80 bytes a job, where a Job
// with its own name string took 88 and a 16-byte allocation).
type job struct {
	User  int32
	Nodes int32
	After JobID
	name  nameRef
	// timeMin is Job.TimeMinSec, 0 when none or not below LimitSec
	// (normalise); an int32 in the padding before Submit, so a row stays
	// 80 bytes.
	timeMin    int32
	Submit     int64
	Eligible   int64
	LimitSec   int64
	RunSec     int64
	PredRunSec int64
	Cancel     int64
	TraceStart int64
}

// row returns j in the table's layout with its name at name.
func row(j *Job, name nameRef) job {
	return job{User: j.User, Nodes: j.Nodes, After: j.After, name: name, Submit: j.Submit, Eligible: j.Eligible,
		LimitSec: j.LimitSec, RunSec: j.RunSec, PredRunSec: j.PredRunSec, Cancel: j.Cancel, TraceStart: j.TraceStart,
		timeMin: timeMinRow(j.TimeMinSec, j.LimitSec)}
}

// timeMinRow returns a time-min as a row holds it: 0 when none or not
// below the limit, math.MaxInt32 when it does not fit (check rejects it).
func timeMinRow(minSec, limitSec int64) int32 {
	switch {
	case minSec <= 0 || minSec >= limitSec:
		return 0
	case minSec > math.MaxInt32:
		return math.MaxInt32
	}
	return int32(minSec)
}

// planSec returns the limit backfill plans the job with: its time-min,
// or its limit when it has none.
func (r *job) planSec() int64 {
	if r.timeMin > 0 {
		return int64(r.timeMin)
	}
	return r.LimitSec
}

// export returns r as a Job, its name from names.
func (r *job) export(names *nameTable) Job {
	return Job{Name: names.get(r.name), User: r.User, Nodes: r.Nodes, Submit: r.Submit, Eligible: r.Eligible,
		After: r.After, LimitSec: r.LimitSec, RunSec: r.RunSec, PredRunSec: r.PredRunSec, Cancel: r.Cancel,
		TraceStart: r.TraceStart, TimeMinSec: int64(r.timeMin)}
}

// Table is a job table in the simulator's own layout: rows without
// pointers, which a garbage collection does not scan, and the names in a
// few shared blocks. ReadTraceTable fills one while it reads a trace,
// without a []Job, and NewFromTable adopts it: a replay of millions of
// jobs holds them once, in about 90 bytes each. The zero Table is empty.
type Table struct {
	rows  []job
	names nameTable
}

// TableOf returns jobs as a Table (a copy).
func TableOf(jobs []Job) *Table {
	total := 0
	for i := range jobs {
		total += len(jobs[i].Name)
	}
	b := newNameBuilder(total)
	t := &Table{rows: make([]job, len(jobs))}
	for i := range jobs {
		t.rows[i] = row(&jobs[i], b.add(jobs[i].Name))
	}
	t.names = b.table()
	return t
}

// Len returns the number of jobs.
func (t *Table) Len() int { return len(t.rows) }

// Job returns job i (0 <= i < Len()). Its Name shares the table's memory.
func (t *Table) Job(i int) Job { return t.rows[i].export(&t.names) }

// Jobs returns the jobs as a []Job (a copy; the names share the table's
// memory).
func (t *Table) Jobs() []Job {
	out := make([]Job, len(t.rows))
	for i := range t.rows {
		out[i] = t.rows[i].export(&t.names)
	}
	return out
}
