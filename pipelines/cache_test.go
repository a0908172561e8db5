package pipelines

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeStage writes a finished stage of key "k" into a new directory:
// two outputs (one in a model directory), recorded by recordStage.
func writeStage(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "stage")
	if err := os.MkdirAll(filepath.Join(dir, "model"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"samples.parquet": strings.Repeat("s", 1000), "model/manifest.json": `{"kind":"x"}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := recordStage(dir, stageMeta{Stage: "s", Key: "k", Seconds: 1}); err != nil {
		t.Fatal(err)
	}
	// Linux's file times are coarse (a clock tick): let the clock move on
	// before a case changes a file, so that its ctime differs.
	time.Sleep(20 * time.Millisecond)
	return dir
}

// flipByte changes the first byte of path in place, keeping its size,
// and sets its mtime back.
func flipByte(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// editMeta rewrites dir's meta.json through edit.
func editMeta(t *testing.T, dir string, edit func(*stageMeta)) {
	t.Helper()
	path := filepath.Join(dir, metaFile)
	var m stageMeta
	if err := json.Unmarshal(readFileT(t, path), &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckStage: a stage directory is fresh only when it holds exactly
// the outputs its meta.json lists, each of its size and sha256. A
// truncated, deleted or extra file is found from the listing and the
// sizes; a changed byte by its stamp (mtime, and on Linux the ctime an
// edit cannot set back) and then its sha256; a change the stamp cannot
// see (the fingerprints rewritten after it) only by verify. Temporaries,
// lock files and the fingerprints are not outputs; a meta.json that
// lists one of them, or itself, is damaged. A touched but unchanged file
// is fresh, after hashing it (refresh).
func TestCheckStage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		damage  func(t *testing.T, dir string)
		want    string // the damage found without verify, "" fresh
		verify  string // with verify
		refresh bool   // fresh after hashing (without verify)
	}{
		{name: "Untouched", damage: func(*testing.T, string) {}},
		{name: "Truncated", damage: func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, "samples.parquet"), 10); err != nil {
				t.Fatal(err)
			}
		}, want: "samples.parquet: size 10, want 1000", verify: "samples.parquet: size 10, want 1000"},
		{name: "Deleted", damage: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "model", "manifest.json")); err != nil {
				t.Fatal(err)
			}
		}, want: "model/manifest.json: missing", verify: "model/manifest.json: missing"},
		{name: "Extra", damage: func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "model", "notes.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: "model/notes.txt: not an output in meta.json", verify: "model/notes.txt: not an output in meta.json"},
		{name: "TemporariesAndLocks", damage: func(t *testing.T, dir string) {
			for _, name := range []string{".samples.parquet.tmp-1-2", ".model.lock", "model/.manifest.json.tmp-3-4", ".meta.json.tmp-5-6"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(filepath.Join(dir, ".model.tmp-7-8"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "ListsItself", damage: func(t *testing.T, dir string) {
			editMeta(t, dir, func(m *stageMeta) { m.Outputs[metaFile] = "00" })
		}, want: "meta.json: listed in meta.json, but not an output (meta.json or a temporary)",
			verify: "meta.json: listed in meta.json, but not an output (meta.json or a temporary)"},
		{name: "ListsTemporary", damage: func(t *testing.T, dir string) {
			editMeta(t, dir, func(m *stageMeta) { m.Outputs[".samples.parquet.tmp-9-1"] = "00" })
		}, want: ".samples.parquet.tmp-9-1: listed in meta.json, but not an output (meta.json or a temporary)",
			verify: ".samples.parquet.tmp-9-1: listed in meta.json, but not an output (meta.json or a temporary)"},
		{name: "OtherKey", damage: func(t *testing.T, dir string) {
			editMeta(t, dir, func(m *stageMeta) { m.Key = "j" })
		}, want: "meta.json: key j, want k", verify: "meta.json: key j, want k"},
		{name: "Touched", damage: func(t *testing.T, dir string) {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(dir, "samples.parquet"), later, later); err != nil {
				t.Fatal(err)
			}
		}, refresh: true},
		{name: "FlippedByteSameSizeAndMtime", damage: func(t *testing.T, dir string) {
			flipByte(t, filepath.Join(dir, "samples.parquet"))
		}, want: "samples.parquet: sha256 ", verify: "samples.parquet: sha256 "},
		{name: "FlippedByteUnseenByStat", damage: func(t *testing.T, dir string) {
			flipByte(t, filepath.Join(dir, "samples.parquet"))
			// What a change no stat field shows (a disk's silent
			// corruption) looks like: stamps that match the files.
			c := checkStage(dir, "k", false)
			if c.fresh || c.damaged == "" {
				t.Fatalf("flipped byte found fresh before the fingerprints were rewritten")
			}
			files, err := listOutputs(dir)
			if err != nil {
				t.Fatal(err)
			}
			fp := fingerprints{Meta: sha256Hex(readFileT(t, filepath.Join(dir, metaFile))), Files: map[string]stamp{}}
			for _, f := range files {
				fp.Files[f.name] = stampOf(f.info)
			}
			if err := writeFingerprints(dir, fp); err != nil {
				t.Fatal(err)
			}
		}, verify: "samples.parquet: sha256 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "FlippedByteSameSizeAndMtime" && runtime.GOOS != "linux" {
				t.Skip("the stamp has no ctime here: only verify finds it")
			}
			dir := writeStage(t)
			tc.damage(t, dir)
			for _, verify := range []bool{false, true} {
				want := tc.want
				if verify {
					want = tc.verify
				}
				c := checkStage(dir, "k", verify)
				if c.fresh != (want == "") || (want == "") != (c.damaged == "") || !strings.HasPrefix(c.damaged, want) {
					t.Errorf("verify %v: fresh %v, damaged %q; want %q", verify, c.fresh, c.damaged, want)
				}
				if refresh := c.refresh != nil; !verify && refresh != tc.refresh {
					t.Errorf("refresh %v, want %v", refresh, tc.refresh)
				}
			}
		})
	}
}

// TestRecordStage: meta.json lists exactly the outputs, with their sizes
// and sha256, never itself, a temporary or a lock file; its bytes do not
// depend on when the files were written (the stamps go to
// .fingerprint.json), and a second recording of the same files gives the
// same meta.json.
func TestRecordStage(t *testing.T) {
	dir := writeStage(t)
	first := readFileT(t, filepath.Join(dir, metaFile))
	for _, name := range []string{".samples.parquet.tmp-1-2", ".x.lock"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("temp"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "samples.parquet"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := recordStage(dir, stageMeta{Stage: "s", Key: "k", Seconds: 1}); err != nil {
		t.Fatal(err)
	}
	second := readFileT(t, filepath.Join(dir, metaFile))
	if string(first) != string(second) {
		t.Errorf("meta.json changed with the files' times or temporaries:\n%s\n%s", first, second)
	}
	var m stageMeta
	if err := json.Unmarshal(second, &m); err != nil {
		t.Fatal(err)
	}
	if got := sortedKeys(m.Outputs); !slices.Equal(got, []string{"model/manifest.json", "samples.parquet"}) {
		t.Errorf("outputs %v", got)
	}
	if m.Sizes["samples.parquet"] != 1000 || m.Outputs["samples.parquet"] != sha256Hex([]byte(strings.Repeat("s", 1000))) {
		t.Errorf("samples.parquet: size %d, sha256 %s", m.Sizes["samples.parquet"], m.Outputs["samples.parquet"])
	}
	if c := checkStage(dir, "k", false); !c.fresh || c.refresh != nil {
		t.Errorf("after recording: %+v, want fresh without hashing", c)
	}
}

// TestCheckShard: a shard's done file lists its files; a truncated,
// changed (always hashed), missing or extra file makes it damaged; an
// empty done file (an earlier mirage's) is trusted.
func TestCheckShard(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, sdir string)
		want   string
	}{
		{"Untouched", func(*testing.T, string) {}, ""},
		{"Truncated", func(t *testing.T, sdir string) {
			if err := os.Truncate(filepath.Join(sdir, "rows-0.parquet"), 3); err != nil {
				t.Fatal(err)
			}
		}, "rows-0.parquet: size 3, want 100"},
		{"Changed", func(t *testing.T, sdir string) { flipByte(t, filepath.Join(sdir, "rows-1.parquet")) }, "rows-1.parquet: sha256 "},
		{"Missing", func(t *testing.T, sdir string) {
			if err := os.Remove(filepath.Join(sdir, "rows-1.parquet")); err != nil {
				t.Fatal(err)
			}
		}, "rows-1.parquet: missing"},
		{"Extra", func(t *testing.T, sdir string) {
			if err := os.WriteFile(filepath.Join(sdir, "rows-2.parquet"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "rows-2.parquet: not an output in done"},
		{"Legacy", func(t *testing.T, sdir string) {
			if err := os.WriteFile(filepath.Join(sdir, shardDoneFile), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(sdir, "rows-1.parquet")); err != nil {
				t.Fatal(err)
			}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sdir := t.TempDir()
			for _, name := range []string{"rows-0.parquet", "rows-1.parquet"} {
				if err := os.WriteFile(filepath.Join(sdir, name), []byte(strings.Repeat(name[5:6], 100)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := recordShard(sdir); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, sdir)
			done, damaged := checkShard(sdir)
			if done != (tc.want == "") || !strings.HasPrefix(damaged, tc.want) || (damaged == "") != (tc.want == "") {
				t.Errorf("done %v, damaged %q; want %q", done, damaged, tc.want)
			}
		})
	}
	if done, damaged := checkShard(t.TempDir()); done || damaged != "" {
		t.Errorf("no done file: done %v, damaged %q", done, damaged)
	}
}
