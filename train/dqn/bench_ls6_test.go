package dqn

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/ingest/ls6test"
)

// ls6Env ingests the LS6 trace and returns the environment of a features
// protocol over it (skipped without ../shared).
func ls6Env(tb testing.TB, protocol string) *Env {
	tb.Helper()
	tj := ls6test.Jobs(tb)
	proto, err := features.LookupProtocol(protocol)
	if err != nil {
		tb.Fatal(err)
	}
	jobs, opts, err := proto.Prepare(tj)
	if err != nil {
		tb.Fatal(err)
	}
	e, err := NewEnv(jobs, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkEnv_LS6 measures environment decisions per second on the LS6
// presets: "wait" steps the main timeline only (the decisions of a
// wait-only episode); "all-actions" also forks at every decision to get
// submit's outcome, as training does (Config.AllActions). Each iteration
// is one episode of a window spread over the training period, 1- and
// 8-node chains alternately.
func BenchmarkEnv_LS6(b *testing.B) {
	for _, protocol := range []string{"mirage-ls6", "ls6"} {
		e := ls6Env(b, protocol)
		first, last := e.Span()
		for _, all := range []bool{false, true} {
			name := protocol + "/wait"
			if all {
				name = protocol + "/all-actions"
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				raw := make([]float64, features.NumFeatures())
				n, i := 0, 0
				for b.Loop() {
					start := first + (last-first)*int64(i%17)/17
					start -= (start - first) % 600
					nodes := e.ChainNodes()[i%len(e.ChainNodes())]
					i++
					if err := e.Reset(ctx, start, nodes, raw); err != nil {
						b.Fatal(err)
					}
					for {
						if all && !e.Last() {
							if _, _, err := e.SubmitOutcome(ctx); err != nil {
								b.Fatal(err)
							}
						}
						n++
						_, done, err := e.Step(ctx, ActionWait, raw)
						if err != nil {
							b.Fatal(err)
						}
						if done {
							break
						}
					}
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "decisions/s")
			})
		}
	}
}
