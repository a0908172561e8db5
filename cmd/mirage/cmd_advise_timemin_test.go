package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAdvise_TimeMinSbatchLine: with --time-min every decision prints
// Q's sbatch line with its dependency and time-min (text and JSON), and
// a dry run's command carries the time-min; without it nothing is added.
func TestAdvise_TimeMinSbatchLine(t *testing.T) {
	sq, err := os.ReadFile("../../advise/testdata/squeue-22.05.8-b.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	g := &globalOptions{stdout: &out, stderr: &bytes.Buffer{}}
	o := adviseOptions{Model: adviseFixture, Job: "275", Successor: "q job.sbatch", Dependency: true, TimeMin: 6 * time.Hour}
	if err := runAdvise(context.Background(), g, o, &fakeSlurm{squeue: sq}, captureAt); err != nil {
		t.Fatal(err)
	}
	if want := "  submit Q with: sbatch --dependency=afterany:275 --time-min=06:00:00 'q job.sbatch'\n"; !strings.Contains(out.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, out.String())
	}
	out.Reset()
	o.JSON = true
	if err := runAdvise(context.Background(), g, o, &fakeSlurm{squeue: sq}, captureAt); err != nil {
		t.Fatal(err)
	}
	var r adviseResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if want := []string{"sbatch", "--dependency=afterany:275", "--time-min=06:00:00", "q job.sbatch"}; !slices.Equal(r.Sbatch, want) {
		t.Errorf("sbatch %q, want %q", r.Sbatch, want)
	}
	// Without --time-min: no line.
	out.Reset()
	o.JSON, o.TimeMin = false, 0
	if err := runAdvise(context.Background(), g, o, &fakeSlurm{squeue: sq}, captureAt); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "submit Q with") {
		t.Errorf("without --time-min: %s", out.String())
	}
	// A dry run when P has ended: the command has the time-min.
	sqa, err := os.ReadFile("../../advise/testdata/squeue-22.05.8-a.json")
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	o = adviseOptions{Model: adviseFixture, Job: "271", Successor: "q.sbatch", DryRun: true, TimeMin: 90 * time.Minute, JSON: true}
	if err := runAdvise(context.Background(), g, o, &fakeSlurm{squeue: sqa}, captureAt); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if want := []string{"sbatch", "--parsable", "--time-min=01:30:00", "q.sbatch"}; !slices.Equal(r.Command, want) {
		t.Errorf("dry run %q, want %q", r.Command, want)
	}
}
