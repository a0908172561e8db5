package features

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// loadEdited loads the built-in profile name from a file with each old
// string of edits replaced by the new one after it.
func loadEdited(t *testing.T, name string, edits ...string) sim.Profile {
	t.Helper()
	b, err := sim.BuiltinProfileYAML(name)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(edits...).Replace(string(b))
	path := filepath.Join(t.TempDir(), name+"-copy.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := sim.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProtocol_SetProfile: a copy of the ls6 profile's file gives the ls6
// preset exactly (and its JSON, which stage keys and manifests record); an
// edited copy is recorded with its settings and simulated with them; a
// profile's inferences turn the protocol's on.
func TestProtocol_SetProfile(t *testing.T) {
	preset, err := LookupProtocol("ls6")
	if err != nil {
		t.Fatal(err)
	}
	if preset.Profile != "ls6" || preset.ProfileSpec != nil || !preset.InferDeps || !preset.InferCapacity {
		t.Errorf("ls6 preset: profile %q (spec %v), infer deps %v, capacity %v", preset.Profile, preset.ProfileSpec, preset.InferDeps, preset.InferCapacity)
	}
	copied := preset
	copied.SetProfile(loadEdited(t, "ls6", "name: ls6", "name: my-ls6"))
	if diff := cmp.Diff(preset, copied); diff != "" {
		t.Errorf("protocol with a copy of ls6.yaml (-preset +copy):\n%s", diff)
	}

	edited := preset
	easy := loadEdited(t, "ls6", "name: ls6", "name: easy", "flavour: conservative", "flavour: easy")
	edited.SetProfile(easy)
	if edited.Profile != "easy" || edited.ProfileSpec == nil {
		t.Fatalf("edited profile recorded as %q, spec %v", edited.Profile, edited.ProfileSpec)
	}
	b, err := json.Marshal(edited)
	if err != nil {
		t.Fatal(err)
	}
	var back Protocol
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got, err := back.SimProfile()
	if err != nil || !cmp.Equal(easy, got) {
		t.Errorf("SimProfile after a JSON round trip = %+v, %v; want the edited profile", got, err)
	}

	compat := preset
	compat.SetProfile(loadEdited(t, "mirage-compat"))
	if compat.Profile != "mirage-compat" || compat.InferDeps || compat.InferCapacity {
		t.Errorf("mirage-compat: profile %q, infer deps %v, capacity %v", compat.Profile, compat.InferDeps, compat.InferCapacity)
	}
}

// TestProtocol_PrepareWithProfile: Prepare infers dependencies and
// capacity with the profile's settings: a gap shorter than the trace's
// 30 s between a job's end and its user's next start infers nothing, and
// an hourly capacity bucket gives other steps than the daily one.
func TestProtocol_PrepareWithProfile(t *testing.T) {
	day := time.Date(2022, 11, 1, 0, 0, 0, 0, time.UTC)
	at := func(h, m, s int) time.Time {
		return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
	}
	job := func(id, user string, submit, start, end time.Time, nodes int32) trace.Job {
		j := trace.NewJob()
		j.JobID, j.User, j.State = id, user, trace.StateCompleted
		j.Submit, j.Eligible, j.Start, j.End = submit, submit, start, end
		j.NNodes, j.TimelimitSec = nodes, 4*3600
		j.ElapsedSec = int64(end.Sub(start) / time.Second)
		return j
	}
	var tjobs []trace.Job
	for d := range 3 { // three days of a 4-node job and a follower
		tjobs = append(tjobs,
			job("a"+string(rune('0'+d)), "u", at(24*d+1, 0, 0), at(24*d+1, 0, 0), at(24*d+3, 0, 0), int32(4+d)),
			job("b"+string(rune('0'+d)), "u", at(24*d+1, 5, 0), at(24*d+3, 0, 30), at(24*d+4, 0, 0), 1))
	}
	prepare := func(prof sim.Profile) ([]sim.Job, Options) {
		p, err := LookupProtocol("ls6")
		if err != nil {
			t.Fatal(err)
		}
		p.SetProfile(prof)
		jobs, o, err := p.Prepare(tjobs)
		if err != nil {
			t.Fatal(err)
		}
		return jobs, o
	}
	after := func(jobs []sim.Job) int {
		n := 0
		for _, j := range jobs {
			if j.After != sim.NoJob {
				n++
			}
		}
		return n
	}
	ls6, err := sim.LoadProfile("ls6")
	if err != nil {
		t.Fatal(err)
	}
	jobs, o := prepare(ls6)
	if after(jobs) != 3 || len(o.Config.Capacity) == 0 {
		t.Fatalf("ls6: %d inferred dependencies, want 3; %d capacity steps", after(jobs), len(o.Config.Capacity))
	}
	shortGap, _ := prepare(loadEdited(t, "ls6", "gap_sec: 120", "gap_sec: 10"))
	if after(shortGap) != 0 {
		t.Errorf("gap_sec 10: %d inferred dependencies, want 0", after(shortGap))
	}
	_, hourly := prepare(loadEdited(t, "ls6", "bucket_sec: 86400", "bucket_sec: 3600"))
	if cmp.Equal(o.Config.Capacity, hourly.Config.Capacity) {
		t.Errorf("bucket_sec 3600 gives the daily bucket's capacity: %v", hourly.Config.Capacity)
	}
}
