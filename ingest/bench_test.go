package ingest_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/ingest/synth"
	"github.com/mirage-hpc/mirage/internal/testenv"
	"github.com/mirage-hpc/mirage/trace"
)

var (
	benchOnce  sync.Once
	benchDir   string
	benchFiles = map[int]string{}
	benchMu    sync.Mutex
)

// synthSacct returns a synthetic sacct --parsable2 dump of n jobs, made
// once per process (fixed seed, so every run measures the same input).
func synthSacct(b *testing.B, n int) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	benchOnce.Do(func() {
		var err error
		if benchDir, err = os.MkdirTemp("", "mirage-bench-"); err != nil {
			b.Fatal(err)
		}
	})
	if p, ok := benchFiles[n]; ok {
		return p
	}
	p := filepath.Join(benchDir, "synth.sacct")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	opts := synth.DefaultOptions()
	opts.Jobs, opts.Seed = n, 1
	if _, err := synth.WriteSacct(w, opts); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	benchFiles[n] = p
	return p
}

func chicago(b *testing.B) *time.Location {
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		b.Fatal(err)
	}
	return loc
}

// BenchmarkRun_Sacct1M ingests a synthetic 1M-row --parsable2 dump into
// Parquet (the target: >= 1M rows/s on one core).
func BenchmarkRun_Sacct1M(b *testing.B) {
	in := synthSacct(b, 1_000_000)
	st, _ := os.Stat(in)
	out := filepath.Join(b.TempDir(), "out.parquet")
	opts := ingest.Options{Location: chicago(b), Cluster: "synth"}
	var sum ingest.Summary
	b.SetBytes(st.Size())
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		var err error
		if sum, err = ingest.Run(context.Background(), []string{in}, out, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	if !sum.Balanced || sum.Quarantined != 0 {
		b.Fatalf("summary %+v", sum)
	}
	reportRows(b, sum.RowsRead, cpu)
}

// BenchmarkRead_Sacct1M parses the same dump without writing Parquet.
func BenchmarkRead_Sacct1M(b *testing.B) {
	in := synthSacct(b, 1_000_000)
	opts := ingest.Options{Location: chicago(b), Cluster: "synth"}
	var rows int64
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		f, err := os.Open(in)
		if err != nil {
			b.Fatal(err)
		}
		sum, err := ingest.Read(context.Background(), f, in, opts, func(*trace.Job) error { return nil }, nil)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		rows = sum.RowsRead
	}
	reportRows(b, rows, cpuTime()-cpu0)
}

// BenchmarkRun_LS6 ingests the real LS6 trace (24,777 rows).
func BenchmarkRun_LS6(b *testing.B) {
	in := testenv.LS6(b)
	out := filepath.Join(b.TempDir(), "ls6.parquet")
	opts := ingest.Options{Location: chicago(b), Cluster: "ls6"}
	var sum ingest.Summary
	b.ResetTimer()
	for range b.N {
		var err error
		if sum, err = ingest.Run(context.Background(), []string{in}, out, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sum.RowsRead)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/op")
}

// reportRows reports rows/s of wall time and, since a shared machine
// inflates wall time, rows/cpu-s: rows per second of the process's CPU
// time (with -cpu 1, the one-core figure).
func reportRows(b *testing.B, rows int64, cpu time.Duration) {
	total := float64(rows) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 {
		b.ReportMetric(total/cpu.Seconds(), "rows/cpu-s")
	}
}
