package synth

import (
	"fmt"
	"io"
	"strconv"
)

// SacctHeader is the header line of WriteSacct's output (without the
// newline): the columns of `sacct --parsable2 --format=...`.
const SacctHeader = "JobID|JobIDRaw|JobName|User|UID|Account|Partition|QOS|State|ExitCode|" +
	"Submit|Eligible|Start|End|ElapsedRaw|Timelimit|TimelimitRaw|NNodes|NCPUS|ReqMem|" +
	"ReqTRES|AllocTRES|Priority|Cluster"

// flushBytes is the size at which the writers hand their buffer to w.
const flushBytes = 64 << 10

// WriteSacct writes opts.Jobs synthetic jobs to w as `sacct --parsable2`
// output with SacctHeader's columns, in JobID (= Submit) order. Times are
// local to opts.Location, as sacct prints them; a job cancelled while
// pending has Start "None" and its cancel time as End, and Eligible
// "Unknown" when it never became eligible. With opts.Steps every started
// job is followed by its N.batch and N.extern step rows.
//
// Memory use does not grow with opts.Jobs. It returns an error wrapping
// ErrInvalidOptions for bad options, or the first error of w.
func WriteSacct(w io.Writer, opts Options) (Stats, error) {
	g, err := newGen(opts)
	if err != nil {
		return Stats{}, err
	}
	f := newSacctFormat(g)
	buf := make([]byte, 0, flushBytes+4096)
	buf = append(buf, SacctHeader...)
	buf = append(buf, '\n')
	var j job
	for g.left > 0 {
		g.next(&j)
		buf = f.appendJob(buf, &j)
		g.stats.Rows++
		if g.o.Steps && j.started {
			buf = f.appendSteps(buf, &j)
			g.stats.Rows += 2
		}
		if len(buf) >= flushBytes {
			if _, err := w.Write(buf); err != nil {
				return g.stats, fmt.Errorf("write sacct: %w", err)
			}
			buf = buf[:0]
		}
	}
	if _, err := w.Write(buf); err != nil {
		return g.stats, fmt.Errorf("write sacct: %w", err)
	}
	g.stats.finish(g.o.Nodes)
	return g.stats, nil
}

// sacctFormat holds the precomputed pieces of rows.
type sacctFormat struct {
	g        *gen
	limits   []string    // "Timelimit|TimelimitRaw|" per limitMix entry
	counts   [][2]string // per nodeMix entry * memKinds: [pending, started] "NNodes|...|AllocTRES|"
	batch    []string    // per nodeMix entry: batch step "NNodes|...|AllocTRES|Priority|"
	extern   []string    // per nodeMix entry: extern step, same columns
	states   [numOutcomes]string
	batchSt  [numOutcomes]string
	tail     string // "|Cluster\n"
	stepTail string // "Cluster\n"
}

func newSacctFormat(g *gen) *sacctFormat {
	f := &sacctFormat{g: g, tail: "|" + g.o.Cluster + "\n", stepTail: g.o.Cluster + "\n"}
	for _, l := range limitMix {
		f.limits = append(f.limits, formatLimit(l.min)+"|"+strconv.FormatInt(l.min, 10)+"|")
	}
	for _, n := range g.capNodes {
		n64 := int64(n)
		for _, m := range memKinds {
			mem := strconv.FormatInt(n64*m.perNode, 10) + m.unit
			req := tres(n64, mem)
			nc := strconv.FormatInt(n64, 10) + "|" + strconv.FormatInt(n64*CoresPerNode, 10) + "|" + mem + "|" + req + "|"
			f.counts = append(f.counts, [2]string{nc + "|", nc + tres(n64, strconv.FormatInt(n64*NodeMemMB/1024, 10)+"G") + "|"})
		}
		f.batch = append(f.batch, "1|"+strconv.Itoa(CoresPerNode)+"|||"+
			"cpu="+strconv.Itoa(CoresPerNode)+",gres/gpu="+strconv.Itoa(GPUsPerNode)+",mem="+strconv.Itoa(NodeMemMB/1024)+"G,node=1||")
		f.extern = append(f.extern, strconv.FormatInt(n64, 10)+"|"+strconv.FormatInt(n64*CoresPerNode, 10)+"|||"+
			tres(n64, strconv.FormatInt(n64*NodeMemMB/1024, 10)+"G")+"||")
	}
	f.states = [numOutcomes]string{
		outCompleted: "COMPLETED|", outFailed: "FAILED|", outOutOfMemory: "OUT_OF_MEMORY|",
		outNodeFail: "NODE_FAIL|", outTimeout: "TIMEOUT|",
	}
	f.batchSt = [numOutcomes]string{
		outCompleted: "COMPLETED|0:0|", outOutOfMemory: "OUT_OF_MEMORY|0:125|", outNodeFail: "NODE_FAIL|0:0|",
		outTimeout: "CANCELLED|0:15|", outCancelledRunning: "CANCELLED|0:15|",
	}
	return f
}

// tres formats a whole-node TRES string.
func tres(nodes int64, mem string) string {
	return "billing=" + strconv.FormatInt(nodes*CoresPerNode, 10) +
		",cpu=" + strconv.FormatInt(nodes*CoresPerNode, 10) +
		",gres/gpu=" + strconv.FormatInt(nodes*GPUsPerNode, 10) +
		",mem=" + mem + ",node=" + strconv.FormatInt(nodes, 10)
}

// formatLimit formats minutes as Slurm's [D-]HH:MM:SS.
func formatLimit(min int64) string {
	d, h, m := min/1440, min%1440/60, min%60
	s := fmt.Sprintf("%02d:%02d:00", h, m)
	if d > 0 {
		s = strconv.FormatInt(d, 10) + "-" + s
	}
	return s
}

// appendJobID appends the JobID column text of j.
func appendJobID(b []byte, j *job) []byte {
	if j.arrayID != 0 {
		b = strconv.AppendInt(b, j.arrayID, 10)
		b = append(b, '_')
		return strconv.AppendInt(b, j.task, 10)
	}
	return strconv.AppendInt(b, j.rawID, 10)
}

// appendJob appends the allocation row of j.
func (f *sacctFormat) appendJob(b []byte, j *job) []byte {
	c := f.g.clock
	if j.arrayID != 0 {
		b = appendJobID(b, j)
		b = append(b, '|')
		b = strconv.AppendInt(b, j.rawID, 10)
	} else { // JobID == JobIDRaw: format once
		n := len(b)
		b = strconv.AppendInt(b, j.rawID, 10)
		b = append(b, '|')
		b = append(b, b[n:len(b)-1]...)
	}
	b = append(b, '|')
	b = append(b, j.name...)
	b = append(b, '|')
	b = append(b, j.user.userUID...)
	b = append(b, f.g.pop.accounts[j.acct]...)
	switch j.out {
	case outCancelledPending, outCancelledRunning:
		if j.byRoot {
			b = append(b, "CANCELLED by 0"...)
		} else {
			b = append(b, j.user.cancelBy...)
		}
		b = append(b, '|')
	default:
		b = append(b, f.states[j.out]...)
	}
	b = append(b, j.exit...)
	b = append(b, '|')
	b = c.appendLocal(b, j.submit)
	b = append(b, '|')
	if j.eligibleKnown {
		b = c.appendLocal(b, j.eligible)
	} else {
		b = append(b, "Unknown"...)
	}
	b = append(b, '|')
	started := 0
	if j.started {
		started = 1
		b = c.appendLocal(b, j.start)
	} else {
		b = append(b, "None"...)
	}
	b = append(b, '|')
	b = c.appendLocal(b, j.end)
	b = append(b, '|')
	if j.started {
		b = strconv.AppendInt(b, j.end-j.start, 10)
	} else {
		b = append(b, '0')
	}
	b = append(b, '|')
	b = append(b, f.limits[j.lim]...)
	b = append(b, f.counts[int(j.node)*len(memKinds)+int(j.user.mem)][started]...)
	b = strconv.AppendInt(b, j.priority, 10)
	return append(b, f.tail...)
}

// appendSteps appends the N.batch and N.extern rows of a started job.
func (f *sacctFormat) appendSteps(b []byte, j *job) []byte {
	var st, en [19]byte
	f.g.clock.appendLocal(st[:0], j.start)
	f.g.clock.appendLocal(en[:0], j.end)
	acct := f.g.pop.acctName[j.acct]
	for _, ext := range [2]bool{false, true} {
		b = appendJobID(b, j)
		name := ".batch"
		if ext {
			name = ".extern"
		}
		b = append(b, name...)
		b = append(b, '|')
		b = strconv.AppendInt(b, j.rawID, 10)
		b = append(b, name...)
		b = append(b, '|')
		b = append(b, name[1:]...)
		b = append(b, "|||"...)
		b = append(b, acct...)
		b = append(b, "|||"...)
		switch {
		case ext:
			b = append(b, "COMPLETED|0:0|"...)
		case j.out == outFailed:
			b = append(b, "FAILED|"...)
			b = append(b, j.exit...)
			b = append(b, '|')
		default:
			b = append(b, f.batchSt[j.out]...)
		}
		for range 3 {
			b = append(b, st[:]...)
			b = append(b, '|')
		}
		b = append(b, en[:]...)
		b = append(b, '|')
		b = strconv.AppendInt(b, j.end-j.start, 10)
		b = append(b, "|||"...)
		if ext {
			b = append(b, f.extern[j.node]...)
		} else {
			b = append(b, f.batch[j.node]...)
		}
		b = append(b, f.stepTail...)
	}
	return b
}
