package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

func partJob(part string, nodes int32, start, end int64) trace.Job {
	j := trace.NewJob()
	j.Partition, j.NNodes = part, nodes
	j.Submit = time.Unix(start-60, 0)
	j.Start, j.End = time.Unix(start, 0), time.Unix(end, 0)
	return j
}

func TestProfileSplit(t *testing.T) {
	jobs := []trace.Job{
		partJob("gpu", 2, 0, 100), partJob("cpu", 4, 0, 50), partJob("gpu", 3, 50, 150),
		partJob("", 1, 0, 10), partJob("debug", 1, 0, 10), partJob("cpu", 4, 50, 60),
	}
	p := Profile{Config: Config{Nodes: 10}, Partitions: []Partition{
		{Name: "gpu"}, {Name: "compute", Match: []string{"cpu", "debug"}, Nodes: 7},
	}}
	parts := p.Split(jobs)
	type want struct {
		name     string
		nodes    int
		inferred bool
		idx      []int
	}
	wants := []want{{"gpu", 5, true, []int{0, 2}}, {"compute", 7, false, []int{1, 4, 5}}, {DefaultPartition, 10, false, []int{3}}}
	if len(parts) != len(wants) {
		t.Fatalf("%d partitions, want %d", len(parts), len(wants))
	}
	total := 0
	for k, w := range wants {
		pj := parts[k]
		total += len(pj.Index)
		if pj.Partition.Name != w.name || pj.Partition.Nodes != w.nodes || pj.NodesInferred != w.inferred || !equalInts(pj.Index, w.idx) {
			t.Errorf("partition %d: %s %d nodes (inferred %v) %v; want %s %d (%v) %v", k, pj.Partition.Name, pj.Partition.Nodes,
				pj.NodesInferred, pj.Index, w.name, w.nodes, w.inferred, w.idx)
		}
	}
	if total != len(jobs) {
		t.Errorf("%d jobs split, want every one of %d", total, len(jobs))
	}
	if pj, ok := FindPartition(parts, "compute"); !ok || len(pj.Jobs(jobs)) != 3 || pj.Jobs(jobs)[1].Partition != "debug" {
		t.Errorf("FindPartition compute: %v %v", pj, ok)
	}
	if _, ok := FindPartition(parts, "nope"); ok {
		t.Error("found a partition that is not there")
	}
	// No partitions: one pool of every job, the profile's size.
	one := Profile{Config: Config{Nodes: 10}}.Split(jobs)
	if len(one) != 1 || len(one[0].Index) != len(jobs) || one[0].Partition.Nodes != 10 || one[0].NodesInferred {
		t.Errorf("no partitions: %+v", one)
	}
	// Every job matched: no default partition.
	all := Profile{Config: Config{Nodes: 10}, Partitions: []Partition{{Name: "x", Match: []string{"gpu", "cpu", "", "debug"}}}}.Split(jobs)
	if len(all) != 1 || len(all[0].Index) != len(jobs) {
		t.Errorf("every job matched: %+v", all)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPeakBusy(t *testing.T) {
	jobs := []trace.Job{partJob("a", 2, 0, 100), partJob("a", 3, 100, 200), partJob("a", 1, 50, 150), partJob("a", 6, 0, 0)}
	// 0-50: 2; 50-100: 3; 100 (end of 2 before start of 3): 1+3 = 4; the
	// 6-node job never ran but is the widest.
	if got := PeakBusy(jobs, []int{0, 1, 2}); got != 4 {
		t.Errorf("PeakBusy = %d, want 4", got)
	}
	if got := PeakBusy(jobs, []int{0, 1, 2, 3}); got != 6 {
		t.Errorf("PeakBusy with a wide job = %d, want 6 (the widest)", got)
	}
}

func TestProfilePartitions_Validate(t *testing.T) {
	base, err := BuiltinProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		parts []Partition
		field string
	}{
		{"Unnamed", []Partition{{}}, "partitions.0.name"},
		{"Default", []Partition{{Name: DefaultPartition}}, "partitions.0.name"},
		{"Twice", []Partition{{Name: "a"}, {Name: "a"}}, "partitions.1.name"},
		{"NegativeNodes", []Partition{{Name: "a", Nodes: -1}}, "partitions.0.nodes"},
		{"NegativeTime", []Partition{{Name: "a", MaxTimeSec: -1}}, "partitions.0.max_time_sec"},
		{"SharedMatch", []Partition{{Name: "a", Match: []string{"x"}}, {Name: "b", Match: []string{"x"}}}, "partitions.1.match"},
		{"Good", []Partition{{Name: "a", Match: []string{"x", "y"}}, {Name: "b", Nodes: 4, MaxTimeSec: 86400}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := base
			p.Partitions = c.parts
			err := p.Validate()
			if c.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), c.field+":") {
				t.Errorf("%v: want ErrProfile naming %s", err, c.field)
			}
		})
	}
}

func TestLoadProfile_Partitions(t *testing.T) {
	dir := t.TempDir()
	text := "name: two\nconfig:\n  nodes: 8\npartitions:\n  - name: gpu\n    nodes: 4\n    max_time_sec: 86400\n  - name: cpu\n    match: [\"1\", \"2\"]\n"
	p, err := LoadProfile(writeText(t, dir, "p.yaml", text))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Partitions) != 2 || p.Partitions[0].MaxTimeSec != 86400 || p.Partitions[1].Match[1] != "2" {
		t.Errorf("partitions %+v", p.Partitions)
	}
	bad := "name: two\nconfig:\n  nodes: 8\npartitions:\n  - name: gpu\n    nodes: -3\n"
	if _, err := LoadProfile(writeText(t, dir, "bad.yaml", bad)); err == nil || !strings.Contains(err.Error(), ":6:") {
		t.Errorf("bad partition: %v, want the file's line 6", err)
	}
}

func writeText(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProfilePartitionOf(t *testing.T) {
	jobs := []trace.Job{partJob("gpu", 2, 0, 100), partJob("cpu", 4, 0, 50), partJob("gpu", 3, 50, 150)}
	none := Profile{Config: Config{Nodes: 10}}
	if pj, ok := none.PartitionOf(jobs, ""); !ok || len(pj.Index) != 3 || pj.Partition.Nodes != 10 {
		t.Errorf("default of a profile without partitions: %+v %v", pj, ok)
	}
	if pj, ok := none.PartitionOf(jobs, "gpu"); !ok || !equalInts(pj.Index, []int{0, 2}) || pj.Partition.Nodes != 5 || !pj.NodesInferred {
		t.Errorf("a trace partition of a profile without partitions: %+v %v, want jobs 0 and 2 on the 5 nodes they held", pj, ok)
	}
	if _, ok := none.PartitionOf(jobs, "nope"); ok {
		t.Error("a partition no job runs in was found")
	}
	listed := Profile{Config: Config{Nodes: 10}, Partitions: []Partition{{Name: "g", Match: []string{"gpu"}, Nodes: 8}}}
	if pj, ok := listed.PartitionOf(jobs, "g"); !ok || pj.Partition.Nodes != 8 || len(pj.Index) != 2 {
		t.Errorf("a listed partition: %+v %v", pj, ok)
	}
	if _, ok := listed.PartitionOf(jobs, "gpu"); ok {
		t.Error("a trace name of a listed partition's match was found as a partition name")
	}
}
