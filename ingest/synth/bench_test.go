package synth_test

import (
	"io"
	"testing"

	"github.com/mirage-hpc/mirage/ingest/synth"
)

// benchJobs is the size of one benchmark run; large enough that setup
// (the user population) is noise.
const benchJobs = 200_000

func benchmarkWrite(b *testing.B, write func(io.Writer, synth.Options) (synth.Stats, error), steps bool) {
	opts := synth.DefaultOptions()
	opts.Jobs, opts.Steps = benchJobs, steps
	// Check the result once before timing.
	st, err := write(io.Discard, opts)
	if err != nil || st.Jobs != benchJobs {
		b.Fatalf("stats %+v, err %v", st, err)
	}
	var bytes countWriter
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := write(&bytes, opts); err != nil {
			b.Fatal(err)
		}
	}
	jobs := float64(benchJobs) * float64(b.N)
	b.ReportMetric(jobs/b.Elapsed().Seconds(), "jobs/s")
	// On a shared machine wall time overstates the cost; CPU time does not
	// (the writers are single-threaded).
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(jobs/cpu.Seconds(), "jobs/cpu-s")
	}
	b.SetBytes(bytes.n / int64(b.N))
}

// countWriter discards what it is given and counts the bytes.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func BenchmarkWriteSacct(b *testing.B) {
	b.Run("jobs", func(b *testing.B) { benchmarkWrite(b, synth.WriteSacct, false) })
	b.Run("steps", func(b *testing.B) { benchmarkWrite(b, synth.WriteSacct, true) })
}

func BenchmarkWriteSWF(b *testing.B) {
	benchmarkWrite(b, synth.WriteSWF, false)
}
