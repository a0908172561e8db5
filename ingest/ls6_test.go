package ingest_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/internal/testenv"
	"github.com/mirage-hpc/mirage/trace"
)

func TestRun_LS6(t *testing.T) {
	path := testenv.LS6(t)
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ls6.parquet")
	sum, err := ingest.Run(context.Background(), []string{path}, out, ingest.Options{Location: loc, Cluster: "ls6"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Format != "mirage" || sum.RowsRead != 24777 || sum.Jobs != 24777 || sum.Repaired != 1 || sum.Quarantined != 0 || !sum.Balanced {
		t.Fatalf("summary = %+v", sum)
	}
	if sum.DSTAmbiguous != 2 {
		t.Errorf("dst_ambiguous = %d, want 2", sum.DSTAmbiguous)
	}
	jobs, err := trace.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	var repaired *trace.Job
	hit := 0
	for i := range jobs {
		j := &jobs[i]
		if i > 0 && trace.Less(j, &jobs[i-1]) {
			t.Fatalf("row %d out of order", i)
		}
		if j.Repair != "" {
			repaired = j
		}
		if j.HitLimit() {
			hit++
		}
	}
	if repaired == nil || repaired.JobID != "746545" || repaired.Repair != trace.RepairShiftedFields {
		t.Errorf("repaired = %+v", repaired)
	}
	if hit != 3887 {
		t.Errorf("jobs at their limit = %d, want 3887", hit)
	}
}
