package ingest_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// FuzzSWF reads arbitrary input as SWF and checks that the reader never
// panics, that every data line is accounted for (Summary.Balanced, and
// RowsRead counts exactly the data lines), that strict mode stops at the
// first quarantined line, and that every job survives a round trip: encoded
// as one SWF line after the input's own header, it reads back as the same
// job.
func FuzzSWF(f *testing.F) {
	for _, name := range []string{"small.swf", "no_header.swf"} {
		data, err := os.ReadFile(filepath.Join("testdata", "swf", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, 0)
		f.Add(data, 4)
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, ";") {
				f.Add([]byte(swfHeader+line+"\n"), 0)
			}
		}
	}
	f.Add([]byte("; UnixStartTime: 0\n"+swfLine(map[int]string{11: "2"})+"\n"+swfLine(map[int]string{11: "4", 3: "500"})+"\r\n"), 3)
	f.Add([]byte(swfLine(map[int]string{2: "7.5", 10: "333.25", 5: "3"})), 0)
	f.Add([]byte("; MaxNodes: 3\n; MaxProcs: 9\n"+swfLine(map[int]string{11: "5", 4: "0"})), 0)
	f.Add([]byte(swfLine(map[int]string{3: "-1", 11: "5"})+"\n"+swfLine(map[int]string{1: "2", 3: "-1", 4: "0"})), 0)
	f.Add([]byte(strings.Repeat("-1 ", 18)+"\n"+swfLine(map[int]string{1: "3", 3: "-1.0", 11: "2"})+"\n"+swfLine(map[int]string{1: "3", 3: "-1", 11: "3"})), 2)
	bad, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.swf"))
	for _, p := range bad {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, 0)
	}
	f.Add([]byte(";\n"), 0)
	f.Add([]byte(""), 0)

	f.Fuzz(func(t *testing.T, data []byte, cores int) {
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			return // compressed: decompression is not what this fuzzes
		}
		opts := ingest.Options{Format: ingest.FormatSWF, Cluster: "fuzz", CoresPerNode: cores}
		res, err := swfRead(t, data, "fuzz.swf", opts)
		if err != nil {
			if !ingest.IsInputError(err) {
				t.Fatalf("Read error is not an input error: %v", err)
			}
			return
		}
		s := res.Summary
		if !s.Balanced || s.Jobs != int64(len(res.Jobs)) || s.Quarantined != int64(len(res.Quarantine)) {
			t.Fatalf("summary = %+v with %d jobs, %d quarantined", s, len(res.Jobs), len(res.Quarantine))
		}
		header, rows := swfSplitHeader(data)
		if s.RowsRead != rows {
			t.Fatalf("RowsRead = %d, want %d data lines", s.RowsRead, rows)
		}
		swfCheckStrict(t, data, opts, res)
		for i := range res.Jobs {
			swfCheckJob(t, &res.Jobs[i])
			checkJobText(t, &res.Jobs[i])
		}
		if len(res.Jobs) == 0 {
			return
		}
		swfCheckRoundTrip(t, header, opts, res.Jobs)
	})
}

// swfCheckRoundTrip encodes jobs as SWF lines after header and checks that
// they read back as the same jobs. A separator job with another job number
// goes between two encoded jobs, so that no two of them are adjacent lines
// of the same job number (which the reader would fold together).
func swfCheckRoundTrip(t *testing.T, header string, opts ingest.Options, jobs []trace.Job) {
	t.Helper()
	base := swfProbeBase(t, header, opts)
	var b strings.Builder
	b.WriteString(header)
	lines := make([]string, len(jobs))
	for i := range jobs {
		if i > 0 {
			sep := int64(0)
			for sep == jobs[i-1].JobIDRaw || sep == jobs[i].JobIDRaw {
				sep++
			}
			b.WriteString(swfLine(map[int]string{1: strconv.FormatInt(sep, 10)}))
			b.WriteByte('\n')
		}
		lines[i] = swfEncode(&jobs[i], base)
		b.WriteString(lines[i])
		b.WriteByte('\n')
	}
	rt, err := swfRead(t, []byte(b.String()), "fuzz.swf", opts)
	if err != nil || len(rt.Jobs) != 2*len(jobs)-1 || len(rt.Quarantine) != 0 {
		t.Fatalf("re-reading %q: %v, %d jobs, quarantine %v", b.String(), err, len(rt.Jobs), rt.Quarantine)
	}
	for i := range jobs {
		j, got := &jobs[i], rt.Jobs[2*i]
		got.SourceLine, got.Steps = j.SourceLine, j.Steps
		if diff := cmp.Diff(*j, got); diff != "" {
			t.Fatalf("round trip of %q (-read +re-read):\n%s", lines[i], diff)
		}
	}
}

// swfSplitHeader returns the lines before the first data line (each ending
// in "\n") and the number of data lines: lines that are neither blank nor
// comments once ASCII white space (space, TAB, CR, VT, FF) is trimmed.
func swfSplitHeader(data []byte) (header string, rows int64) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte-order mark is dropped
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // the final newline ends the last line
	}
	n := -1
	for i, l := range lines {
		l = bytes.Trim(l, " \t\r\v\f")
		if len(l) == 0 || l[0] == ';' {
			continue
		}
		if n < 0 {
			n = i
		}
		rows++
	}
	if n < 0 {
		return "", 0
	}
	var b strings.Builder
	for _, l := range lines[:n] {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.String(), rows
}

// swfCheckStrict checks that a strict read stops at the first quarantined
// line, or reads the same jobs when nothing was quarantined.
func swfCheckStrict(t *testing.T, data []byte, opts ingest.Options, res swfResult) {
	t.Helper()
	opts.Strict = true
	strict, err := swfRead(t, data, "fuzz.swf", opts)
	if len(res.Quarantine) == 0 {
		if err != nil {
			t.Fatalf("strict Read: %v", err)
		}
		if diff := cmp.Diff(res.Jobs, strict.Jobs); diff != "" {
			t.Fatalf("strict jobs differ (-lenient +strict):\n%s", diff)
		}
		return
	}
	var perr *ingest.ParseError
	q := res.Quarantine[0]
	if !errors.As(err, &perr) || perr.Line != q.Line || perr.Field != q.Field || perr.Err.Error() != q.Reason {
		t.Fatalf("strict Read error = %v, want the first quarantined line %+v", err, q)
	}
}

// swfCheckJob checks the invariants of a job read from SWF.
func swfCheckJob(t *testing.T, j *trace.Job) {
	t.Helper()
	bad := func(what string) { t.Fatalf("job %s (line %d): %s: %+v", j.JobID, j.SourceLine, what, *j) }
	if j.JobID != strconv.FormatInt(j.JobIDRaw, 10) {
		bad("JobID is not JobIDRaw in decimal")
	}
	if !j.Start.IsZero() && (j.Submit.IsZero() || j.Start.Before(j.Submit)) {
		bad("Start without Submit, or before it")
	}
	if !j.End.IsZero() && !j.Start.IsZero() && j.End.Before(j.Start) {
		bad("End before Start")
	}
	if !j.End.IsZero() && j.Start.IsZero() && (j.State != trace.StateCancelled || j.End.Before(j.Submit)) {
		bad("End without Start for a job that was not cancelled before it started")
	}
	if j.StartUnknown && (!j.Start.IsZero() || !j.End.IsZero() || j.ElapsedSec < 0) ||
		!j.StartUnknown && j.ElapsedSec != trace.Unknown {
		bad("StartUnknown with a Start, an End or no ElapsedSec, or ElapsedSec without StartUnknown")
	}
	if j.NCPUs < 0 || j.NNodes < 0 || j.NNodes > j.NCPUs || (j.NCPUs > 0) != (j.NNodes > 0) {
		bad("bad processor or node count")
	}
	if j.ReqMemMB < trace.Unknown || j.TimelimitSec < trace.NoLimit || j.UID < trace.NoID || j.GID < trace.NoID {
		bad("negative count other than unknown")
	}
}

// swfProbeBase returns the instant (Unix seconds) the header's relative
// times count from, by reading a probe job submitted at 0 after it.
func swfProbeBase(t *testing.T, header string, opts ingest.Options) int64 {
	t.Helper()
	probe := swfLine(map[int]string{2: "0"})
	res, err := swfRead(t, []byte(header+probe+"\n"), "probe.swf", opts)
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("probe after header %q: %v, %v", header, err, res.Jobs)
	}
	return res.Jobs[0].Submit.Unix()
}

// swfEncode writes j as an SWF data line whose times count from base
// (Unix seconds). Fields a trace.Job does not keep are -1, but for think
// time 0 when every other field would be -1 (a line the reader
// quarantines); allocated and requested processors are both NCPUs.
func swfEncode(j *trace.Job, base int64) string {
	var f [18]string
	for i := range f {
		f[i] = "-1"
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	f[0] = itoa(j.JobIDRaw)
	if !j.Submit.IsZero() {
		f[1] = itoa(j.Submit.Unix() - base)
	}
	switch {
	case !j.Start.IsZero():
		f[2] = itoa(j.Start.Unix() - j.Submit.Unix())
		if !j.End.IsZero() {
			f[3] = itoa(j.End.Unix() - j.Start.Unix())
		}
	case j.State == trace.StateCancelled && !j.End.IsZero():
		f[2], f[3] = itoa(j.End.Unix()-j.Submit.Unix()), "0"
	case j.StartUnknown:
		f[3] = itoa(j.ElapsedSec)
	}
	f[4], f[7] = itoa(int64(j.NCPUs)), itoa(int64(j.NCPUs))
	if j.TimelimitSec != trace.NoLimit {
		f[8] = itoa(j.TimelimitSec)
	}
	switch {
	case j.ReqMemMB == trace.Unknown:
	case j.NCPUs == 0:
		f[9] = "0"
	default:
		f[9] = strconv.FormatFloat(float64(j.ReqMemMB)*1024/float64(j.NCPUs), 'f', -1, 64)
	}
	f[10] = map[trace.State]string{
		trace.StateFailed: "0", trace.StateCompleted: "1", trace.StatePreempted: "2",
		trace.StateCancelled: "5", trace.StateUnknown: "-1",
	}[j.State]
	if j.UID != trace.NoID {
		f[11] = itoa(j.UID)
	}
	if j.GID != trace.NoID {
		f[12] = itoa(j.GID)
	}
	if j.QOS != "" {
		f[14] = j.QOS
	}
	if j.Partition != "" {
		f[15] = j.Partition
	}
	known := false
	for _, v := range f[1:] {
		known = known || v != "-1"
	}
	if !known {
		f[17] = "0" // the job came from a line with a field it does not keep
	}
	return strings.Join(f[:], " ")
}
