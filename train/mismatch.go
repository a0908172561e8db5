package train

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrBadModel means a model directory is not a usable model of its kind:
// an unreadable manifest, a kind other than the one asked for, or a model
// whose shape does not fit its manifest. It is shared by every model kind
// (XGBoost, estimate, DQN), so that the CLI gives them one exit status.
var ErrBadModel = errors.New("invalid model")

// KindDQN is the manifest kind of a DQN model directory (package
// train/dqn).
const KindDQN = "dqn"

// ErrDQNModel means Open was given a DQN model directory: a DQN is a
// submission policy, not a predictor of r, and is opened with dqn.Open.
var ErrDQNModel = errors.New("a DQN model (kind dqn) is a policy, not a predictor of r")

// FeatureMismatchError is the error of a feature table whose feature
// names, order or schema version differ from a model's. It matches
// ErrFeatures under errors.Is, for every model kind (XGBoost, DQN).
type FeatureMismatchError struct {
	// Got and GotSchema are the table's feature names (in column order)
	// and feature schema version; Want and WantSchema the model's.
	Got, Want             []string
	GotSchema, WantSchema int
}

// maxListed bounds the feature names one list of Error names.
const maxListed = 8

// Error says what differs: the schema version, the features the model
// wants but the table lacks ("missing"), those the table has but the model
// does not ("extra"), and, when the sets are equal, the first position
// (0-indexed) whose name differs.
func (e *FeatureMismatchError) Error() string {
	var parts []string
	if e.GotSchema != e.WantSchema {
		parts = append(parts, fmt.Sprintf("feature schema version %d, model wants %d", e.GotSchema, e.WantSchema))
	}
	missing, extra := setDiff(e.Want, e.Got), setDiff(e.Got, e.Want)
	if len(missing) > 0 {
		parts = append(parts, "missing "+listNames(missing))
	}
	if len(extra) > 0 {
		parts = append(parts, "extra "+listNames(extra))
	}
	if len(missing) == 0 && len(extra) == 0 {
		for i := range min(len(e.Got), len(e.Want)) {
			if e.Got[i] != e.Want[i] {
				parts = append(parts, fmt.Sprintf("features in another order: column %d is %s, model wants %s", i, e.Got[i], e.Want[i]))
				break
			}
		}
		if len(e.Got) != len(e.Want) {
			parts = append(parts, fmt.Sprintf("%d features, model wants %d (a repeated name)", len(e.Got), len(e.Want)))
		}
	}
	return ErrFeatures.Error() + ": " + strings.Join(parts, "; ")
}

// Is reports whether target is ErrFeatures.
func (e *FeatureMismatchError) Is(target error) bool { return target == ErrFeatures }

// CheckFeatures returns a *FeatureMismatchError unless names and
// schemaVersion are exactly want and wantSchema, in order; nil otherwise.
// Every model kind checks its input with it.
func CheckFeatures(names []string, schemaVersion int, want []string, wantSchema int) error {
	if schemaVersion == wantSchema && slices.Equal(names, want) {
		return nil
	}
	return &FeatureMismatchError{Got: names, Want: want, GotSchema: schemaVersion, WantSchema: wantSchema}
}

// setDiff returns the names of a that are not in b, in a's order.
func setDiff(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// listNames formats names as "a, b, c" (at most maxListed, then "and N
// more").
func listNames(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}
