package pipelines

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/internal/digest"
)

// A finished stage directory holds its outputs, meta.json (written last:
// the key, the inputs, each output's sha256 and size) and
// .fingerprint.json, this file system's stat of each output when it was
// last found to match meta.json. A stage is a cache hit only when its
// files are exactly those meta.json lists, each of its size, and each
// either of its recorded stat (size, mtime, and on Linux ctime and inode)
// or of its sha256; with verify every output is hashed. The fingerprint
// is kept out of meta.json so that meta.json depends on the outputs'
// contents only, not on when or where they were written.

// metaFile is a finished stage's record, written last.
const metaFile = "meta.json"

// fingerprintFile holds the outputs' stat (fingerprints), beside
// meta.json; it is not an output.
const fingerprintFile = ".fingerprint.json"

// stageMeta is a finished stage's meta.json: a stage directory without
// it is unfinished and is redone.
type stageMeta struct {
	Stage  string   `json:"stage"`
	Key    string   `json:"key"`
	Inputs []string `json:"inputs"`
	outputList
	Seconds float64 `json:"seconds"`
}

// outputList is what a record (a stage's meta.json, a shard's done file)
// lists of the files beside it.
type outputList struct {
	Outputs map[string]string `json:"outputs_sha256"`
	// Sizes are the outputs' sizes in bytes; absent in a record of an
	// earlier mirage (the outputs are then hashed when their stamps
	// differ).
	Sizes map[string]int64 `json:"outputs_bytes,omitempty"`
}

// isOutput reports whether rel, a path relative to a stage directory
// (slash-separated), can be one of its outputs: not meta.json, and no
// element of it begins with a dot (temporaries, lock files,
// .fingerprint.json).
func isOutput(rel string) bool {
	if rel == metaFile {
		return false
	}
	for el := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(el, ".") {
			return false
		}
	}
	return true
}

// outputFile is one output of a stage directory.
type outputFile struct {
	name string // relative to the directory, slash-separated
	path string
	info fs.FileInfo
}

// listOutputs returns the outputs under dir (isOutput), sorted by name.
func listOutputs(dir string) ([]outputFile, error) {
	var out []outputFile
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case !isOutput(rel) && d.IsDir():
			return filepath.SkipDir
		case !isOutput(rel), d.IsDir():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, outputFile{name: rel, path: path, info: info})
		return nil
	})
	slices.SortFunc(out, func(a, b outputFile) int { return strings.Compare(a.name, b.name) })
	return out, err
}

// hashOutputs returns the sha256 of every output under dir (listOutputs).
func hashOutputs(dir string) (map[string]string, error) {
	files, err := listOutputs(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(files))
	for _, f := range files {
		if out[f.name], err = digest.File(f.path); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stamp is an output's stat, compared instead of its sha256.
type stamp struct {
	Size    int64  `json:"size"`     // bytes
	MtimeNs int64  `json:"mtime_ns"` // modification time, ns since 1970
	CtimeNs int64  `json:"ctime_ns,omitempty"`
	Inode   uint64 `json:"inode,omitempty"`
}

func stampOf(info fs.FileInfo) stamp {
	st := stamp{Size: info.Size(), MtimeNs: info.ModTime().UnixNano()}
	statStamp(&st, info)
	return st
}

// fingerprints is .fingerprint.json: the outputs' stamps taken when they
// matched the meta.json of sha256 Meta.
type fingerprints struct {
	Meta  string           `json:"meta_sha256"`
	Files map[string]stamp `json:"files"`
}

// readFingerprints returns dir's stamps taken against the meta.json of
// sha256 metaSum; nil when there are none (absent, unreadable, or of
// another meta.json).
func readFingerprints(dir, metaSum string) map[string]stamp {
	b, err := os.ReadFile(filepath.Join(dir, fingerprintFile))
	if err != nil {
		return nil
	}
	var fp fingerprints
	if json.Unmarshal(b, &fp) != nil || fp.Meta != metaSum {
		return nil
	}
	return fp.Files
}

// writeFingerprints replaces dir's .fingerprint.json (atomically).
func writeFingerprints(dir string, fp fingerprints) error {
	b, err := json.Marshal(fp)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, fingerprintFile)
	if _, err := atomicfile.RemoveStale(path); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// cacheCheck is what checkStage found in a stage directory.
type cacheCheck struct {
	// fresh: a finished stage of the key whose outputs match meta.json.
	fresh bool
	// damaged says why a directory with a meta.json is not fresh (the
	// first problem, in the outputs' order: "samples.parquet: size 1234,
	// want 56789"); "" when fresh or unfinished (no meta.json).
	damaged string
	// refresh, when not nil, are the fingerprints of a fresh stage some
	// of whose stamps were out of date (its outputs were hashed): the
	// caller, holding the stage's lock, may write them.
	refresh *fingerprints
}

// finished says whether dir holds a finished stage of key whose outputs
// match its meta.json (checkStage without verify).
func finished(dir, key string) bool { return checkStage(dir, key, false).fresh }

// checkStage checks dir against its meta.json: the key; exactly the
// listed outputs, none missing and none extra; each of its recorded size;
// and each of its sha256, hashed when verify is set or when its stamp
// differs from the one recorded (the file was touched, replaced or
// copied since).
func checkStage(dir, key string, verify bool) cacheCheck {
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if errors.Is(err, fs.ErrNotExist) {
		return cacheCheck{}
	}
	if err != nil {
		return cacheCheck{damaged: fmt.Sprintf("%s: %v", metaFile, err)}
	}
	var m stageMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return cacheCheck{damaged: fmt.Sprintf("%s: %v", metaFile, err)}
	}
	if m.Key != key {
		return cacheCheck{damaged: fmt.Sprintf("%s: key %s, want %s", metaFile, m.Key, key)}
	}
	files, err := listOutputs(dir)
	if err != nil {
		return cacheCheck{damaged: err.Error()}
	}
	metaSum := sha256Hex(b)
	problem, hashed := matchFiles(files, m.outputList, metaFile, readFingerprints(dir, metaSum), verify)
	if problem != "" {
		return cacheCheck{damaged: problem}
	}
	c := cacheCheck{fresh: true}
	if hashed {
		c.refresh = &fingerprints{Meta: metaSum, Files: make(map[string]stamp, len(files))}
		for _, f := range files {
			c.refresh.Files[f.name] = stampOf(f.info)
		}
	}
	return c
}

// matchFiles compares files with what record lists: exactly those
// files, each of its size, then each of its sha256, hashed unless its
// stamp equals the one in stamps (nil: none) and verify is not set. It
// returns the first problem ("" when none; "samples.parquet: size 1234,
// want 56789 (and 2 more)") and whether a file was hashed.
func matchFiles(files []outputFile, list outputList, record string, stamps map[string]stamp, verify bool) (problem string, hashed bool) {
	var problems []string
	present := make(map[string]bool, len(files))
	for _, f := range files {
		present[f.name] = true
		want, listed := list.Outputs[f.name]
		switch size, known := list.Sizes[f.name]; {
		case !listed || want == "":
			problems = append(problems, f.name+": not an output in "+record)
		case list.Sizes != nil && !known:
			problems = append(problems, f.name+": no size in "+record)
		case known && f.info.Size() != size:
			problems = append(problems, fmt.Sprintf("%s: size %d, want %d", f.name, f.info.Size(), size))
		}
	}
	for _, name := range sortedKeys(list.Outputs) {
		switch {
		case !isOutput(name) || name == shardDoneFile && record == shardDoneFile:
			problems = append(problems, name+": listed in "+record+", but not an output ("+record+" or a temporary)")
		case !present[name]:
			problems = append(problems, name+": missing")
		}
	}
	if len(problems) > 0 {
		return summarise(problems), false
	}
	for _, f := range files {
		if old, ok := stamps[f.name]; ok && old == stampOf(f.info) && !verify {
			continue
		}
		h, err := digest.File(f.path)
		if err != nil {
			return err.Error(), hashed
		}
		if want := list.Outputs[f.name]; h != want {
			return fmt.Sprintf("%s: sha256 %.12s, want %.12s", f.name, h, want), hashed
		}
		hashed = true
	}
	return "", hashed
}

// summarise is the first problem, and how many more there are.
func summarise(problems []string) string {
	if len(problems) == 1 {
		return problems[0]
	}
	return fmt.Sprintf("%s (and %d more)", problems[0], len(problems)-1)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// listFiles returns the sha256 and size of each of files, and their
// stamps, which it takes after reading each file: a file that changed
// meanwhile is an error.
func listFiles(files []outputFile) (outputList, map[string]stamp, error) {
	list := outputList{Outputs: make(map[string]string, len(files)), Sizes: make(map[string]int64, len(files))}
	stamps := make(map[string]stamp, len(files))
	for _, f := range files {
		h, err := digest.File(f.path)
		if err != nil {
			return list, nil, err
		}
		info, err := os.Lstat(f.path) // after reading it: what the next check compares
		if err != nil {
			return list, nil, err
		}
		if st := stampOf(info); st != stampOf(f.info) {
			return list, nil, fmt.Errorf("%s: changed while its sha256 was taken", f.path)
		}
		list.Outputs[f.name], list.Sizes[f.name], stamps[f.name] = h, info.Size(), stampOf(info)
	}
	return list, stamps, nil
}

// recordStage writes dir's meta.json, from the outputs the stage wrote
// (listOutputs: never meta.json itself, a temporary or a lock file), and
// then their fingerprints; the stage's lock must be held.
func recordStage(dir string, m stageMeta) error {
	files, err := listOutputs(dir)
	if err != nil {
		return err
	}
	list, stamps, err := listFiles(files)
	if err != nil {
		return err
	}
	m.outputList = list
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := atomicfile.WriteFile(filepath.Join(dir, metaFile), b); err != nil {
		return err
	}
	return writeFingerprints(dir, fingerprints{Meta: sha256Hex(b), Files: stamps})
}

// shardDoneFile marks a finished shard (shard.go): it lists the shard's
// files as meta.json does a stage's (outputList).
const shardDoneFile = "done"

// shardFiles lists a shard directory's files, but its done file.
func shardFiles(sdir string) ([]outputFile, error) {
	files, err := listOutputs(sdir)
	return slices.DeleteFunc(files, func(f outputFile) bool { return f.name == shardDoneFile }), err
}

// recordShard writes sdir's done file, listing the files the shard
// wrote; the shard's lock must be held.
func recordShard(sdir string) error {
	files, err := shardFiles(sdir)
	if err != nil {
		return err
	}
	list, _, err := listFiles(files)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(sdir, shardDoneFile), append(b, '\n'))
}

// checkShard says whether sdir holds a finished shard (its done file)
// and, when it does not, why a shard with a done file is damaged ("" when
// it has none): its files must be those done lists, each of its size and
// sha256 (always hashed: a shard is checked only by the job that would
// run or merge it). An empty done file (an earlier mirage's) is trusted.
func checkShard(sdir string) (done bool, damaged string) {
	b, err := os.ReadFile(filepath.Join(sdir, shardDoneFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, ""
	case err != nil:
		return false, fmt.Sprintf("%s: %v", shardDoneFile, err)
	case len(b) == 0:
		return true, ""
	}
	var list outputList
	if err := json.Unmarshal(b, &list); err != nil {
		return false, fmt.Sprintf("%s: %v", shardDoneFile, err)
	}
	files, err := shardFiles(sdir)
	if err != nil {
		return false, err.Error()
	}
	if problem, _ := matchFiles(files, list, shardDoneFile, nil, true); problem != "" {
		return false, problem
	}
	return true, ""
}
