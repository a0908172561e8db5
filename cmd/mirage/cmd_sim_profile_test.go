package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// replayJSON runs sim replay --json with args on trace tr and returns its
// summary without the wall-clock figures (wall_sec, events_per_sec).
func replayJSON(t *testing.T, tr string, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := run(t, append([]string{"sim", "replay", "--trace", tr, "--json", "--progress", "never"}, args...)...)
	if code != 0 {
		t.Fatalf("sim replay %v: exit %d: %s", args, code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	delete(sum, "wall_sec")
	delete(sum, "events_per_sec")
	return sum
}

// writeProfile writes the built-in profile name, with each old string of
// edits replaced by the new one after it, to dir/file and returns its
// path; the text comes from mirage sim profile show, as a user copies it.
func writeProfile(t *testing.T, dir, file, name string, edits ...string) string {
	t.Helper()
	stdout, stderr, code := run(t, "sim", "profile", "show", name)
	if code != 0 {
		t.Fatalf("sim profile show %s: exit %d: %s", name, code, stderr)
	}
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(strings.NewReplacer(edits...).Replace(stdout)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSimReplay_ProfileFile: --profile FILE with a copy of a built-in
// profile replays as --profile NAME does (inferences included); an edited
// copy replays with its edits (backfill flavour, priority weight, limits,
// capacity inference), flags overriding them; a bad file is exit status 3
// naming the file, line and field.
func TestSimReplay_ProfileFile(t *testing.T) {
	dir := t.TempDir()
	tr := ingestSynth500(t, dir)
	replay := func(args ...string) map[string]any { return replayJSON(t, tr, append(args, "--nodes", "16")...) }
	builtin := map[string]map[string]any{}
	for _, name := range sim.ProfileNames() {
		builtin[name] = replay("--profile", name)
		copied := replay("--profile", writeProfile(t, dir, name+".yaml", name))
		if !reflect.DeepEqual(builtin[name], copied) {
			t.Errorf("--profile %s and a copy of it differ:\n%v\n%v", name, builtin[name], copied)
		}
		if inferred := builtin[name]["inferred_dependencies"] != nil; inferred != (name == "ls6") {
			t.Errorf("--profile %s: inferred dependencies %v", name, builtin[name]["inferred_dependencies"])
		}
	}
	ls6 := builtin["ls6"]
	config := func(sum map[string]any, path ...string) any {
		var v any = sum["config"]
		for _, k := range path {
			v = v.(map[string]any)[k]
		}
		return v
	}
	for _, tt := range []struct {
		name  string
		edits []string
		field []string
		want  any
	}{
		{"Flavour", []string{"flavour: conservative", "flavour: none"}, []string{"backfill", "flavour"}, 2.0},
		{"AgeWeight", []string{"age_weight: 7000", "age_weight: 0"}, []string{"priority", "age_weight"}, 0.0},
		{"Limits", []string{"max_jobs_per_user: 0", "max_jobs_per_user: 1"}, []string{"limits", "max_jobs_per_user"}, 1.0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sum := replay("--profile", writeProfile(t, dir, tt.name+".yaml", "ls6", tt.edits...))
			if got := config(sum, tt.field...); got != tt.want {
				t.Errorf("config %v = %v, want %v", tt.field, got, tt.want)
			}
			if reflect.DeepEqual(sum["per_month"], ls6["per_month"]) && reflect.DeepEqual(sum["work"], ls6["work"]) {
				t.Errorf("edited profile replays as ls6 does: %v", sum["work"])
			}
		})
	}
	// Flags override the profile file's settings.
	limited := writeProfile(t, dir, "limited.yaml", "ls6", "max_jobs_per_user: 0", "max_jobs_per_user: 1")
	if sum := replay("--profile", limited, "--max-jobs-per-user", "0"); !reflect.DeepEqual(sum, ls6) {
		t.Errorf("--max-jobs-per-user 0 over a profile's 1 differs from ls6:\n%v\n%v", sum, ls6)
	}
	hourly := writeProfile(t, dir, "hourly.yaml", "ls6", "bucket_sec: 86400", "bucket_sec: 3600")
	if sum := replay("--profile", hourly); reflect.DeepEqual(sum["config"], ls6["config"]) {
		t.Error("bucket_sec 3600 infers the daily bucket's capacity")
	}
	if sum := replay("--profile", hourly, "--capacity-bucket", "24h"); !reflect.DeepEqual(sum, ls6) {
		t.Errorf("--capacity-bucket 24h over a profile's hour differs from ls6:\n%v\n%v", sum, ls6)
	}
	if sum := replay("--profile", "ls6", "--infer-deps=false", "--infer-capacity=false"); sum["inferred_dependencies"] != nil || sum["capacity_steps"] != 0.0 {
		t.Errorf("--infer-deps=false --infer-capacity=false: %v, %v capacity steps", sum["inferred_dependencies"], sum["capacity_steps"])
	}

	bad := writeProfile(t, dir, "bad.yaml", "ls6", "interval_sec: 600", "interval_sec: 0")
	_, stderr, code := run(t, "sim", "replay", "--trace", tr, "--profile", bad)
	if code != exitUsage || !strings.Contains(stderr, bad+":") || !strings.Contains(stderr, "config.backfill.interval_sec: 0") {
		t.Errorf("bad profile: exit %d, %s; want %d naming the file, line and field", code, stderr, exitUsage)
	}
	if _, stderr, code := run(t, "sim", "replay", "--trace", tr, "--profile", "slurm"); code != exitUsage || !strings.Contains(stderr, `"slurm"`) {
		t.Errorf("--profile slurm: exit %d, %s", code, stderr)
	}
}

// TestSimProfileShow: a built-in profile prints as its embedded file; a
// profile file prints checked, as YAML or JSON; a bad one is exit status 3.
func TestSimProfileShow(t *testing.T) {
	for _, name := range sim.ProfileNames() {
		want, err := sim.BuiltinProfileYAML(name)
		if err != nil {
			t.Fatal(err)
		}
		if stdout, stderr, code := run(t, "sim", "profile", "show", name); code != 0 || stdout != string(want) {
			t.Errorf("show %s: exit %d (%s), output differs from the embedded file", name, code, stderr)
		}
	}
	dir := t.TempDir()
	path := writeProfile(t, dir, "mine.yaml", "ls6", "name: ls6", "name: mine")
	stdout, _, code := run(t, "sim", "profile", "show", path)
	if code != 0 || !strings.HasPrefix(stdout, "name: mine\n") || strings.Contains(stdout, "#") {
		t.Errorf("show FILE: exit %d:\n%s", code, stdout)
	}
	stdout, _, code = run(t, "sim", "profile", "show", "--json", path)
	var p sim.Profile
	if err := json.Unmarshal([]byte(stdout), &p); code != 0 || err != nil || p.Name != "mine" || p.InferCapacity == nil {
		t.Errorf("show --json FILE: exit %d, %v: %+v", code, err, p)
	}
	if _, _, code := run(t, "sim", "profile", "show", filepath.Join(dir, "none.yaml")); code != exitUsage {
		t.Errorf("show of a missing file: exit %d, want %d", code, exitUsage)
	}
}
