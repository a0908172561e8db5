package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Manifest kinds of the model directories written by other packages
// (train/jobruntime, evaluate), named here so that every loader can say
// what a directory of another kind is for.
const (
	// KindRuntime is a run-time model (train --model runtime, package
	// train/jobruntime).
	KindRuntime = "runtime"
	// KindForecast is a forecast directory (train --model forecast): its
	// manifest is ForecastFile, not manifest.json.
	KindForecast = "forecast"
)

// ForecastFile is the manifest of a forecast directory.
const ForecastFile = "forecast.json"

// KindUses returns the commands that take a model directory of kind kind
// (a manifest's kind; target is its target, which only an estimate needs)
// as DIR, for the errors of loaders given another kind.
func KindUses(kind, target string) string {
	switch kind {
	case "forest", "xgboost":
		return fmt.Sprintf("mirage predict --model DIR, mirage evaluate --policy %s:DIR, mirage advise --model DIR", kind)
	case KindEstimate:
		return "mirage evaluate --policy slurm-estimate:DIR, mirage advise --model DIR"
	case KindDQN:
		return "mirage evaluate --policy dqn:DIR, mirage advise --model DIR"
	case KindRuntime:
		return "mirage features build --runtime-model DIR, mirage train --model forecast --runtime-model DIR, " +
			"mirage sim starts --runtime-model DIR, mirage evaluate --policy forecast:DIR or runtime-estimate:DIR"
	case KindForecast:
		return "mirage evaluate --policy forecast:DIR or runtime-estimate:DIR, mirage features build --runtime-model DIR"
	}
	return "no mirage command"
}

// KindError is a model directory of a kind the loader does not take. It
// matches ErrBadModel, and ErrDQNModel for a DQN.
type KindError struct {
	Dir    string
	Kind   string // the manifest's kind
	Target string // the manifest's target, when it has one
	// Want says what the loader takes ("a forest or xgboost model").
	Want string
}

func (e *KindError) Error() string {
	what := fmt.Sprintf("kind %q", e.Kind)
	if e.Target != "" {
		what += fmt.Sprintf(", target %q", e.Target)
	}
	return fmt.Sprintf("%s: %s: a model directory of %s, not %s; kind %q is for %s",
		e.Dir, ErrBadModel, what, e.Want, e.Kind, strings.ReplaceAll(KindUses(e.Kind, e.Target), "DIR", e.Dir))
}

// Is reports whether target is ErrBadModel, or ErrDQNModel for a DQN.
func (e *KindError) Is(target error) bool {
	return target == ErrBadModel || (e.Kind == KindDQN && target == ErrDQNModel)
}

// ReadKind returns the kind and target of the model directory dir: its
// manifest.json's (unchecked: the loader of that kind checks its seal),
// or KindForecast for a directory with ForecastFile and no manifest.json.
// A directory with neither, or none, is an error wrapping fs.ErrNotExist.
func ReadKind(dir string) (kind, target string, err error) {
	b, err := ReadBounded(filepath.Join(dir, ManifestFile), MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(filepath.Join(dir, ForecastFile)); serr == nil {
			return KindForecast, "", nil
		}
		return "", "", fmt.Errorf("open model %s: not a model directory (no %s or %s): %w", dir, ManifestFile, ForecastFile, err)
	}
	if err != nil {
		return "", "", fmt.Errorf("open model: %w", err)
	}
	var head struct {
		Kind   string `json:"kind"`
		Target string `json:"target"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return "", "", fmt.Errorf("%s: %w: %w", filepath.Join(dir, ManifestFile), ErrBadModel, err)
	}
	return head.Kind, head.Target, nil
}
