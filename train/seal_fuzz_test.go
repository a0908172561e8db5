package train_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mirage-hpc/mirage/train"
)

// FuzzManifestDigest checks the seal's canonical form on any manifest
// bytes: ManifestDigest gives a digest or an error, never a panic, and
// the digest of a manifest does not depend on its layout (the same JSON
// compacted or indented differently has the same digest).
func FuzzManifestDigest(f *testing.F) {
	f.Add([]byte(`{"kind": "xgboost", "threshold": 0.7, "files": {"model.json": {"size": 3, "sha256": "ab"}}, "manifest_sha256": ""}`))
	f.Add([]byte(`{"a": 1e400, "b": [1, 2.50, -0], "c": "\u00e9\ud800", "manifest_sha256": 5}`))
	f.Add([]byte(`{"x": 1, "x": 2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, _, err := train.ManifestDigest(b)
		if err != nil {
			return
		}
		for _, indent := range []string{"", "\t"} {
			var other bytes.Buffer
			var e error
			if indent == "" {
				e = json.Compact(&other, b)
			} else {
				e = json.Indent(&other, b, " ", indent)
			}
			if e != nil {
				continue // ManifestDigest reads what encoding/json's layout functions do not
			}
			d2, _, err := train.ManifestDigest(other.Bytes())
			if err != nil {
				t.Fatalf("the manifest digests, its re-laid-out copy fails: %v\n%q", err, other.Bytes())
			}
			if d2 != d {
				t.Fatalf("digest %s, of the re-laid-out copy %s\n%q\n%q", d, d2, b, other.Bytes())
			}
		}
	})
}
