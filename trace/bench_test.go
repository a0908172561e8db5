package trace_test

import (
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// benchJobs returns n realistic, sorted jobs (fixed seed).
func benchJobs(n int) []trace.Job {
	rng := rand.New(rand.NewPCG(1, 2))
	users := make([]string, 300)
	for i := range users {
		users[i] = "user" + strconv.Itoa(i)
	}
	names := make([]string, 5000)
	for i := range names {
		names[i] = "job_" + strconv.Itoa(i)
	}
	jobs := make([]trace.Job, n)
	at := time.Date(2022, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range jobs {
		j := trace.NewJob()
		at = at.Add(time.Duration(rng.IntN(600)) * time.Second)
		u := rng.IntN(len(users))
		j.JobID = strconv.Itoa(478729 + i)
		j.JobIDRaw = int64(478729 + i)
		j.Cluster, j.Partition, j.Account, j.User = "ls6", "gpu-a100", "A-"+strconv.Itoa(u%40), users[u]
		j.UID, j.JobName, j.QOS = int64(u), names[rng.IntN(len(names))], "normal"
		j.State = trace.StateCompleted
		j.Submit, j.Eligible = at, at
		j.Start = at.Add(time.Duration(rng.IntN(3600)) * time.Second)
		j.End = j.Start.Add(time.Duration(rng.IntN(172800)) * time.Second)
		j.TimelimitSec, j.NNodes, j.NCPUs, j.NGPUs = 172800, 1, 128, 3
		j.ReqMemMB, j.Priority = 256000, int64(1000+rng.IntN(4000))
		j.SourceFile, j.SourceLine = "in.sacct", int64(i+2)
		jobs[i] = j
	}
	return jobs
}

// BenchmarkWriter writes 1M sorted jobs to a trace file: the Parquet side
// of ingest.
func BenchmarkWriter(b *testing.B) {
	jobs := benchJobs(1_000_000)
	path := filepath.Join(b.TempDir(), "t.parquet")
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		writeJobs(b, path, trace.WriterOptions{}, jobs)
	}
	reportRows(b, len(jobs), cpuTime()-cpu0)
}

// BenchmarkReader reads them back.
func BenchmarkReader(b *testing.B) {
	jobs := benchJobs(1_000_000)
	path := filepath.Join(b.TempDir(), "t.parquet")
	writeJobs(b, path, trace.WriterOptions{}, jobs)
	buf := make([]trace.Job, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		r, err := trace.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Read(buf); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
	reportRows(b, len(jobs), cpuTime()-cpu0)
}

// reportRows reports rows/s of wall time and rows/cpu-s, rows per second
// of the process's CPU time, which a shared machine does not inflate.
func reportRows(b *testing.B, rows int, cpu time.Duration) {
	total := float64(rows) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 {
		b.ReportMetric(total/cpu.Seconds(), "rows/cpu-s")
	}
}
