package train_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/modeltest"
)

// leafModel is an XGBoost JSON model over nf features of trees one-leaf
// trees, each with value leaf.
func leafModel(nf, trees int, leaf string) []byte {
	tr := `{"left_children":[-1],"right_children":[-1],"split_indices":[0],"split_conditions":[` + leaf + `],"default_left":[false]}`
	ts := strings.TrimSuffix(strings.Repeat(tr+",", trees), ",")
	return fmt.Appendf(nil, `{"version":[2,0,3],"learner":{"learner_model_param":{"base_score":"0","num_feature":"%d","num_target":"1"},
"objective":{"name":"reg:squarederror"},"gradient_booster":{"name":"gbtree","model":{"trees":[%s]}}}}`, nf, ts)
}

// writeModel writes a sealed xgboost model directory of target r over
// names, with cv.json and an operating point, and returns it.
func writeModel(t *testing.T, names []string, model []byte) string {
	t.Helper()
	fs := make([]features.Feature, len(names))
	for i, n := range names {
		fs[i] = features.Feature{Name: n}
	}
	op := &train.OperatingPoint{Target: train.TargetR, Param: "theta_h", BudgetH: 1,
		ByChain: map[string]train.ChainPoint{"1": {Value: 0.5, Threshold: -0.5}}, Default: train.ChainPoint{Value: 0.5, Threshold: -0.5}}
	m := &train.Manifest{Kind: "xgboost", Target: string(train.TargetR), OperatingPoint: op, Features: fs,
		FeatureSchemaVersion: 1, CV: &train.CVResult{Rounds: 1}}
	dir := filepath.Join(t.TempDir(), "model")
	if err := train.WriteArtifact(dir, model, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestManifestDigest_Canonical(t *testing.T) {
	base := []byte(`{"kind": "xgboost", "a": [1, 2.50, {"y": "é", "x": null}], "manifest_sha256": "abc"}`)
	d, stated, err := train.ManifestDigest(base)
	if err != nil || stated != "abc" {
		t.Fatalf("ManifestDigest = %q, %q, %v", d, stated, err)
	}
	same := map[string]string{
		"Reformatted":   "{\n  \"a\": [1,2.50,{\"x\":null,\"y\":\"\\u00e9\"}],\n  \"kind\":\"xgboost\"}",
		"OtherDigest":   `{"kind": "xgboost", "a": [1, 2.50, {"y": "é", "x": null}], "manifest_sha256": "def"}`,
		"DigestMissing": `{"kind": "xgboost", "a": [1, 2.50, {"y": "é", "x": null}]}`,
	}
	for name, s := range same {
		if got, _, err := train.ManifestDigest([]byte(s)); err != nil || got != d {
			t.Errorf("%s: digest %s, %v; want %s", name, got, err, d)
		}
	}
	differ := map[string]string{
		"Value":     `{"kind": "estimate", "a": [1, 2.50, {"y": "é", "x": null}]}`,
		"Number":    `{"kind": "xgboost", "a": [1, 2.5, {"y": "é", "x": null}]}`,
		"Order":     `{"kind": "xgboost", "a": [2.50, 1, {"y": "é", "x": null}]}`,
		"Key":       `{"kind": "xgboost", "a": [1, 2.50, {"y": "é", "x": null}], "Kind": "estimate"}`,
		"Duplicate": `{"kind": "xgboost", "a": [1, 2.50, {"y": "é", "x": null}], "kind": "estimate"}`,
	}
	for name, s := range differ {
		if got, _, err := train.ManifestDigest([]byte(s)); err != nil || got == d {
			t.Errorf("%s: digest %s, %v; want another than %s", name, got, err, d)
		}
	}
	for _, s := range []string{`[1]`, `{"a":1} {}`, `null`, `{`} {
		if _, _, err := train.ManifestDigest([]byte(s)); err == nil {
			t.Errorf("ManifestDigest(%s): no error", s)
		}
	}
}

// TestOpen_Tampered: a byte flipped in any file of a model directory, an
// edited operating point, a missing or grown file, and a manifest from
// before seals are refused (train.ErrDigest) naming the file.
func TestOpen_Tampered(t *testing.T) {
	names := []string{"a", "b"}
	dir := writeModel(t, names, leafModel(2, 2, "0.25"))
	if _, err := train.Open(dir); err != nil {
		t.Fatalf("Open on the written model: %v", err)
	}
	tests := []struct {
		name, file string
		change     func(b []byte) []byte // nil: remove the file
		want       error
	}{
		{"FlipModel", train.ModelFile, flip, train.ErrDigest},
		{"FlipCV", train.CVFile, flip, train.ErrDigest},
		{"FlipManifest", train.ManifestFile, func(b []byte) []byte { return bytes.Replace(b, []byte(`"rows": 0`), []byte(`"rows": 1`), 1) }, train.ErrDigest},
		{"OperatingPoint", train.ManifestFile, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"threshold": -0.5`), []byte(`"threshold": -5`), 1)
		}, train.ErrDigest},
		{"Kind", train.ManifestFile, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"kind": "xgboost"`), []byte(`"kind": "forest"`), 1)
		}, train.ErrDigest},
		{"Legacy", train.ManifestFile, func(b []byte) []byte {
			var m map[string]any
			json.Unmarshal(b, &m)
			delete(m, "manifest_sha256")
			delete(m, "files")
			out, _ := json.Marshal(m)
			return out
		}, train.ErrUnsealed},
		{"Grown", train.ModelFile, func(b []byte) []byte { return append(b, ' ') }, train.ErrDigest},
		{"MissingCV", train.CVFile, nil, train.ErrDigest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := copyDir(t, dir)
			p := filepath.Join(d, tt.file)
			if tt.change == nil {
				os.Remove(p)
			} else {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, tt.change(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := train.Open(d)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.file) {
				t.Errorf("Open: %v; want %v naming %s", err, tt.want, tt.file)
			}
		})
	}
}

// flip flips the low bit of the middle byte of b.
func flip(b []byte) []byte {
	b[len(b)/2] ^= 1
	return b
}

func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(from))
	modeltest.CopyDir(t, from, to)
	return to
}

// TestOpen_LargeFileNotRead: a model.json grown to 2 GiB (sparse) is
// refused by its size without being read, whether the manifest still
// says the old size or (sealed again) claims the new one.
func TestOpen_LargeFileNotRead(t *testing.T) {
	dir := writeModel(t, []string{"a", "b"}, leafModel(2, 2, "0.25"))
	const size = 2 << 30
	for _, reseal := range []bool{false, true} {
		t.Run(fmt.Sprintf("Resealed=%v", reseal), func(t *testing.T) {
			d := copyDir(t, dir)
			if err := os.Truncate(filepath.Join(d, train.ModelFile), size); err != nil {
				t.Skipf("no sparse file: %v", err)
			}
			if reseal { // the manifest claims the size
				modeltest.EditManifest(t, d, func(m map[string]any) {
					m["files"].(map[string]any)[train.ModelFile].(map[string]any)["size"] = size
				})
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			began := time.Now()
			_, err := train.Open(d)
			took := time.Since(began)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), train.ModelFile) {
				t.Fatalf("Open: %v; want an error naming %s", err, train.ModelFile)
			}
			want := train.ErrDigest
			if reseal {
				want = train.ErrBadModel
			}
			if !errors.Is(err, want) {
				t.Errorf("Open: %v; want %v", err, want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 || took > 5*time.Second {
				t.Errorf("Open allocated %d bytes in %v refusing a %d-byte file", alloc, took, size)
			}
		})
	}
}

// TestOpen_Kinds: an estimate margin predicts nothing (a *KindError naming
// the commands that take it, not a nil-model panic), and a manifest whose
// kind does not fit its files is refused.
func TestOpen_Kinds(t *testing.T) {
	names := []string{"a", "b"}
	dir := writeModel(t, names, leafModel(2, 1, "0.25"))
	est := filepath.Join(t.TempDir(), "est")
	op := &train.OperatingPoint{Target: train.TargetEstimate, Param: "margin_h", Default: train.ChainPoint{Value: 1, Threshold: -1}}
	if err := train.WriteArtifact(est, nil, &train.Manifest{Kind: train.KindEstimate, Target: string(train.TargetEstimate), OperatingPoint: op}); err != nil {
		t.Fatal(err)
	}
	a, err := train.Open(est)
	if err != nil {
		t.Fatalf("Open(estimate): %v", err)
	}
	s := &features.Samples{Names: nil}
	var ke *train.KindError
	if _, err := a.Predict(s, 0); !errors.As(err, &ke) || !errors.Is(err, train.ErrBadModel) || !strings.Contains(err.Error(), "slurm-estimate:"+est) {
		t.Errorf("Predict with an estimate: %v; want a *KindError naming slurm-estimate:%s", err, est)
	}
	if _, err := train.OpenPredictor(est); !errors.As(err, &ke) || !strings.Contains(err.Error(), "advise --model "+est) {
		t.Errorf("OpenPredictor(estimate): %v; want a *KindError naming advise --model", err)
	}
	for name, edit := range map[string]func(m map[string]any){
		"EstimateWithModel": func(m map[string]any) { m["kind"] = train.KindEstimate },
		"EstimateOfR": func(m map[string]any) {
			m["kind"] = train.KindEstimate
			delete(m["files"].(map[string]any), train.ModelFile)
		},
		"ClassifierOfR": func(m map[string]any) { m["target"] = "interrupt" },
		"UnknownKind":   func(m map[string]any) { m["kind"] = "tree" },
	} {
		t.Run(name, func(t *testing.T) {
			d := copyDir(t, dir)
			modeltest.Edit(t, d, edit)
			if _, err := train.Open(d); !errors.Is(err, train.ErrBadModel) {
				t.Errorf("Open: %v; want ErrBadModel", err)
			}
		})
	}
}

// TestPredict_NonFinite: a model whose trees sum past float32's range
// predicts +Inf; Predict refuses it (ErrBadModel) instead of writing it.
func TestPredict_NonFinite(t *testing.T) {
	dir := writeModel(t, []string{"a"}, leafModel(1, 2, "3e38"))
	a, err := train.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &features.Samples{Names: []string{"a"}, Features: [][]float64{{1, 2}}, WindowID: []int32{7, 7}, ProbeTime: []int64{10, 20}}
	if _, err := a.Predict(s, 1); !errors.Is(err, train.ErrBadModel) || !strings.Contains(err.Error(), "window 7") {
		t.Errorf("Predict: %v; want ErrBadModel naming the row's window", err)
	}
}
