package advise

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// Test helpers that render a simulation's state as Slurm would print it.

// jobRaw is the Slurm job ID of simulation job id.
func jobRaw(id sim.JobID) int64 { return 1000 + int64(id) }

// userName is the Slurm user of user index u.
func userName(u int32) string { return fmt.Sprintf("u%03d", u) }

// hostileName is a job name with a space, quotes and a '|'; five names
// repeat (a run-time model reads a user's jobs of the same name).
func hostileName(id sim.JobID) string {
	return fmt.Sprintf(`job %d "it's" | x`, id%5)
}

// runtimeAttrs are the fields only a run-time model reads of simulation
// job j of ID id, as renderSacct prints them: an account by user, a QOS
// by limit, 8 CPUs per node and, for every other job, 2 GPUs per node.
func runtimeAttrs(j *sim.Job, id sim.JobID) (account, qos string, cpus, gpus int32) {
	account, qos, cpus = fmt.Sprintf("acct%d", j.User%3), "normal", 8*j.Nodes
	if j.LimitSec > 12*3600 {
		qos = "long"
	}
	if id%2 == 1 {
		gpus = 2 * j.Nodes
	}
	return account, qos, cpus, gpus
}

// renderSqueueJSON renders snap as `squeue --json`: v0.0.38 numbers when
// v38, else v0.0.40 {"set","infinite","number"} objects and state lists.
func renderSqueueJSON(s *sim.Sim, snap *sim.Snapshot, v38 bool) []byte {
	num := func(n int64) any {
		if v38 {
			return n
		}
		return map[string]any{"set": true, "infinite": false, "number": n}
	}
	state := func(st string) any {
		if v38 {
			return st
		}
		return []string{st}
	}
	var jobs []map[string]any
	add := func(id sim.JobID, st, reason string, nodes int32, limit, submit, elig, start int64) {
		j := s.Job(id)
		jobs = append(jobs, map[string]any{
			"job_id": num(jobRaw(id)), "array_job_id": num(0), "array_task_id": nil, "name": hostileName(id),
			"user_name": userName(j.User), "partition": "normal", "job_state": state(st), "state_reason": reason,
			"submit_time": num(submit), "eligible_time": num(elig), "start_time": num(start), "end_time": num(start + limit),
			"time_limit": num(limit / 60), "node_count": num(int64(nodes)), "priority": num(4294900000 - int64(len(jobs))),
			"command": "/bin/true", "flags": []string{"X"},
		})
	}
	for _, p := range snap.Pending {
		add(p.ID, "PENDING", "Priority", p.Nodes, p.LimitSec, p.Submit, p.Eligible, snap.Now+3600)
	}
	for _, r := range snap.Running {
		add(r.ID, "RUNNING", "None", r.Nodes, r.LimitSec, r.Submit, r.Submit, r.Start)
	}
	b, err := json.MarshalIndent(map[string]any{
		"meta": map[string]any{"Slurm": map[string]any{"release": "22.05.8"}}, "errors": []any{}, "jobs": jobs,
	}, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// renderSacct renders every job submitted before s.Now() as
// `sacct --parsable2 --format=SacctFields`, with steps after each
// allocation that ran, in job ID order; with runtime, as SacctRuntimeArgs
// asks (SacctRuntimeFields, tab-separated: names with '|').
func renderSacct(s *sim.Sim, runtime bool) []byte {
	now := s.Now()
	var b strings.Builder
	sep, header := "|", SacctFields
	if runtime {
		sep, header = "\t", SacctRuntimeFields
	}
	b.WriteString(strings.ReplaceAll(header, ",", sep) + "\n")
	ts := func(t int64, ok bool) string {
		if !ok {
			return "Unknown"
		}
		return time.Unix(t, 0).UTC().Format("2006-01-02T15:04:05")
	}
	row := func(fields ...any) {
		for i, f := range fields {
			if i > 0 {
				b.WriteString(sep)
			}
			fmt.Fprint(&b, f)
		}
		b.WriteString("\n")
	}
	for id := sim.JobID(0); int(id) < s.NumJobs(); id++ {
		j := s.Job(id)
		if j.Submit >= now {
			continue
		}
		elig, eok := s.EligibleAt(id)
		start, sok := s.Started(id)
		end, dok := s.Ended(id)
		state := "PENDING"
		switch {
		case dok:
			state = "COMPLETED"
		case sok:
			state = "RUNNING"
		}
		lim := fmt.Sprintf("%02d:%02d:00", j.LimitSec/3600, j.LimitSec%3600/60)
		if j.LimitSec >= 86400 {
			lim = fmt.Sprintf("%d-%02d:%02d:00", j.LimitSec/86400, j.LimitSec%86400/3600, j.LimitSec%3600/60)
		}
		alloc := []any{jobRaw(id), jobRaw(id), userName(j.User), "normal", state,
			ts(j.Submit, true), ts(elig, eok), ts(start, sok), ts(end, dok), lim, j.Nodes}
		step := []any{fmt.Sprintf("%d.batch", jobRaw(id)), jobRaw(id), "", "normal", state,
			ts(j.Submit, true), ts(elig, eok), ts(start, sok), ts(end, dok), "", 1}
		if runtime {
			account, qos, cpus, gpus := runtimeAttrs(&j, id)
			tres := fmt.Sprintf("billing=%d,cpu=%d,node=%d", cpus, cpus, j.Nodes)
			if gpus > 0 {
				tres = fmt.Sprintf("billing=%d,cpu=%d,gres/gpu=%d,node=%d", cpus, cpus, gpus, j.Nodes)
			}
			allocTRES := ""
			if sok {
				allocTRES = tres
			}
			alloc = append(alloc, hostileName(id), account, qos, cpus, allocTRES, tres)
			step = append(step, "batch", account, "", 1, "", "")
		}
		row(alloc...)
		if sok {
			row(step...)
		}
	}
	return []byte(b.String())
}
