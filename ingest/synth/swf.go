package synth

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// WriteSWF writes opts.Jobs synthetic jobs to w in the Standard Workload
// Format, version 2.2: a header of "; Key: value" comments, then one line
// of 18 fields per job in Submit order, -1 for unknown.
//
// Jobs are numbered 1..Jobs (field 1); times are seconds after the
// header's UnixStartTime (opts.Start). Processors are CPUs (CoresPerNode
// per node); requested memory (field 10) is KB per processor. Status
// (field 11) is 1 for COMPLETED, 5 for CANCELLED (before or after the
// start) and 0 otherwise (FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL). A
// job cancelled while pending has Wait Time up to its cancellation, Run
// Time 0 and allocated processors -1. User (12) and Group (13, the
// account) are numbered from 1 by first appearance, Executable (14) by job
// name; Queue and Partition (15, 16) are 1.
//
// Memory use does not grow with opts.Jobs. It returns an error wrapping
// ErrInvalidOptions for bad options, or the first error of w.
func WriteSWF(w io.Writer, opts Options) (Stats, error) {
	g, err := newGen(opts)
	if err != nil {
		return Stats{}, err
	}
	buf := make([]byte, 0, flushBytes+4096)
	buf = appendSWFHeader(buf, &g.o)
	ids := newSWFIDs(g.pop)
	var j job
	for n := int64(1); g.left > 0; n++ {
		g.next(&j)
		buf = appendSWFJob(buf, &j, n, g.t0, ids)
		g.stats.Rows++
		if len(buf) >= flushBytes {
			if _, err := w.Write(buf); err != nil {
				return g.stats, fmt.Errorf("write swf: %w", err)
			}
			buf = buf[:0]
		}
	}
	if _, err := w.Write(buf); err != nil {
		return g.stats, fmt.Errorf("write swf: %w", err)
	}
	g.stats.finish(g.o.Nodes)
	return g.stats, nil
}

func appendSWFHeader(b []byte, o *Options) []byte {
	line := func(k, v string) {
		b = append(b, "; "...)
		b = append(b, k...)
		b = append(b, ": "...)
		b = append(b, v...)
		b = append(b, '\n')
	}
	itoa := func(n int) string { return strconv.Itoa(n) }
	line("Version", "2.2")
	line("Computer", "synthetic whole-node GPU partition ("+itoa(CoresPerNode)+" cores, "+itoa(GPUsPerNode)+" GPUs per node)")
	line("Installation", o.Cluster)
	line("Information", "SYNTHETIC DATA from the Mirage workload generator (package ingest/synth); not a real trace")
	line("Conversion", "generated with seed "+strconv.FormatUint(o.Seed, 10)+", target utilisation "+strconv.FormatFloat(o.Utilisation, 'g', -1, 64))
	line("MaxJobs", itoa(o.Jobs))
	line("MaxRecords", itoa(o.Jobs))
	line("Preemption", "No")
	line("UnixStartTime", strconv.FormatInt(o.Start.Unix(), 10))
	line("TimeZoneString", o.Location.String())
	line("StartTime", o.Start.In(o.Location).Format(time.UnixDate))
	line("MaxNodes", itoa(o.Nodes))
	line("MaxProcs", itoa(o.Nodes*CoresPerNode))
	line("AllowOveruse", "No")
	line("MaxQueues", "1")
	line("Queues", "1 "+QOS)
	line("MaxPartitions", "1")
	line("Partitions", "1 "+Partition)
	line("Note", "Status 1 completed, 0 failed (incl. timeout, out of memory, node failure), 5 cancelled")
	line("Note", "Group is the account; Executable numbers the job name; processors are CPUs")
	return b
}

// swfIDs numbers users, accounts and job names from 1 in order of first
// appearance.
type swfIDs struct {
	users, accts, names []int64 // by population index; 0 = not yet numbered
	n                   [3]int64
}

func newSWFIDs(p *population) *swfIDs {
	return &swfIDs{users: make([]int64, len(p.users)), accts: make([]int64, len(p.accounts)), names: make([]int64, len(p.names))}
}

// id returns the number of index i of kind k (0 users, 1 accounts, 2 names).
func (s *swfIDs) id(k int, ids []int64, i int32) int64 {
	if ids[i] == 0 {
		s.n[k]++
		ids[i] = s.n[k]
	}
	return ids[i]
}

// appendSWFJob appends job number n.
func appendSWFJob(b []byte, j *job, n, t0 int64, ids *swfIDs) []byte {
	procs := int64(j.nnodes) * CoresPerNode
	b = strconv.AppendInt(b, n, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, j.submit-t0, 10)
	b = append(b, ' ')
	if j.started {
		b = strconv.AppendInt(b, j.start-j.submit, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, j.end-j.start, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, procs, 10)
	} else {
		b = strconv.AppendInt(b, j.end-j.submit, 10)
		b = append(b, " 0 -1"...)
	}
	b = append(b, " -1 -1 "...) // average CPU time, used memory
	b = strconv.AppendInt(b, procs, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, limitMix[j.lim].min*60, 10)
	b = append(b, ' ')
	m := memKinds[j.user.mem]
	memKB := m.perNode * 1024
	if m.unit == "G" {
		memKB *= 1024
	}
	b = strconv.AppendInt(b, memKB/CoresPerNode, 10)
	switch j.out {
	case outCompleted:
		b = append(b, " 1 "...)
	case outCancelledPending, outCancelledRunning:
		b = append(b, " 5 "...)
	default:
		b = append(b, " 0 "...)
	}
	b = strconv.AppendInt(b, ids.id(0, ids.users, j.user.index), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, ids.id(1, ids.accts, j.acct), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, ids.id(2, ids.names, j.nameID), 10)
	return append(b, " 1 1 -1 -1\n"...) // queue, partition, preceding job, think time
}
