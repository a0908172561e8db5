package evaluate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/modeltest"
)

// TestReadForecastManifest_Sealed: forecast.json is sealed like every
// model manifest: an edited operating point or a forecast.json from
// before seals is refused (train.ErrDigest), and settings that would make
// a decision run without end are refused even when sealed again.
func TestReadForecastManifest_Sealed(t *testing.T) {
	op := &train.OperatingPoint{Target: train.TargetInterrupt, Param: "tau", Default: train.ChainPoint{Value: 0.5, Threshold: 0.5}}
	dir := filepath.Join(t.TempDir(), "fc")
	m := &ForecastManifest{Kind: ForecastKind, Runtime: "/rt", RuntimeSHA256: strings.Repeat("ab", 32), K: 32,
		Forecast: op, RuntimeEstimate: op, Correlation: 0.5}
	if err := WriteForecastManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadForecastManifest(dir); err != nil || got.K != 32 || got.ManifestSHA256 == "" {
		t.Fatalf("ReadForecastManifest = %+v, %v", got, err)
	}
	p := filepath.Join(dir, ForecastFile)
	orig, _ := os.ReadFile(p)
	edit := func(t *testing.T, from, to string) {
		t.Helper()
		b := bytes.Replace(orig, []byte(from), []byte(to), 1)
		if bytes.Equal(b, orig) {
			t.Fatalf("forecast.json has no %s", from)
		}
		os.WriteFile(p, b, 0o644)
	}
	t.Run("OperatingPoint", func(t *testing.T) {
		edit(t, `"threshold": 0.5`, `"threshold": 0.05`)
		if _, err := ReadForecastManifest(dir); !errors.Is(err, train.ErrDigest) || !strings.Contains(err.Error(), ForecastFile) {
			t.Errorf("edited τ: %v; want train.ErrDigest naming %s", err, ForecastFile)
		}
	})
	t.Run("Legacy", func(t *testing.T) {
		edit(t, `"manifest_sha256": "`, `"no_sha256": "`)
		if _, err := ReadForecastManifest(dir); !errors.Is(err, train.ErrUnsealed) {
			t.Errorf("unsealed: %v; want train.ErrUnsealed", err)
		}
	})
	t.Run("Rollouts", func(t *testing.T) {
		os.WriteFile(p, orig, 0o644)
		modeltest.Edit(t, dir, func(m map[string]any) { m["rollouts"] = 2_000_000_000 })
		if _, err := ReadForecastManifest(dir); !errors.Is(err, train.ErrBadModel) || !strings.Contains(err.Error(), "rollouts") {
			t.Errorf("2e9 rollouts: %v; want train.ErrBadModel naming rollouts", err)
		}
	})
}
