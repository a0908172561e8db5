package pipelines

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
)

// studyWithProfile loads the built-in ls6 study from dir/study.yaml with
// cluster.profile the file profiles/ls6.yaml beside it (relative to the
// study), holding the built-in ls6 profile with each old string of edits
// replaced by the new one after it.
func studyWithProfile(t *testing.T, dir string, edits ...string) *Study {
	t.Helper()
	_, text, err := Builtin("ls6")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := sim.BuiltinProfileYAML("ls6")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "profiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "profiles", "ls6.yaml"), []byte(strings.NewReplacer(edits...).Replace(string(prof))), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "study.yaml")
	data := []byte(strings.Replace(string(text), "profile: ls6", "profile: profiles/ls6.yaml", 1))
	s, err := Load(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// analyzeKey is the analyze stage's cache key of s.
func analyzeKey(t *testing.T, s *Study) string {
	t.Helper()
	key, _, err := stageKey(analyzeStage(s, "trace", RunOptions{}), RunOptions{Out: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// TestStudy_ProfileFile: a study's cluster.profile may be a profile file,
// relative to the study file. A copy of the ls6 profile gives the ls6
// study's protocols and stage keys exactly (the cache is shared); an
// edited one gives protocols that carry its settings and keys that change
// with the file's content; a missing file is an error naming the field.
func TestStudy_ProfileFile(t *testing.T) {
	builtin, _, err := Builtin("ls6")
	if err != nil {
		t.Fatal(err)
	}
	wantTrain, wantVal, err := builtin.Protocols()
	if err != nil {
		t.Fatal(err)
	}
	copied := studyWithProfile(t, t.TempDir(), "name: ls6", "name: our-ls6")
	train, val, err := copied.Protocols()
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff(wantTrain, train) + gocmp.Diff(wantVal, val); d != "" {
		t.Errorf("protocols with a copy of the ls6 profile (-built-in +copy):\n%s", d)
	}
	if analyzeKey(t, builtin) != analyzeKey(t, copied) {
		t.Error("analyze stage key differs for a copy of the ls6 profile")
	}

	easy := studyWithProfile(t, t.TempDir(), "flavour: conservative", "flavour: easy")
	train, _, err = easy.Protocols()
	if err != nil {
		t.Fatal(err)
	}
	prof, err := train.SimProfile()
	if err != nil || prof.Config.Backfill.Flavour != sim.BackfillEASY || train.ProfileSpec == nil || !train.InferDeps {
		t.Errorf("edited profile: %+v, spec %v, infer deps %v, %v", prof.Config.Backfill, train.ProfileSpec, train.InferDeps, err)
	}
	none := studyWithProfile(t, t.TempDir(), "flavour: conservative", "flavour: none")
	keys := map[string]bool{analyzeKey(t, builtin): true, analyzeKey(t, easy): true, analyzeKey(t, none): true}
	if len(keys) != 3 {
		t.Errorf("analyze stage keys of ls6, an easy and a none backfill profile: %d distinct, want 3", len(keys))
	}
	if n, err := easy.partitionNodes(); err != nil || n != 80 {
		t.Errorf("partition of the profile file: %d, %v", n, err)
	}

	missing := studyWithProfile(t, t.TempDir())
	missing.Cluster.Profile = "profiles/none.yaml"
	if _, _, err := missing.Protocols(); !errors.Is(err, ErrStudy) || !errors.Is(err, sim.ErrProfile) || !strings.Contains(err.Error(), "cluster.profile") {
		t.Errorf("missing profile file: %v", err)
	}
}
