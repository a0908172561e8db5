package train_test

import (
	"errors"
	"testing"

	"github.com/mirage-hpc/mirage/train"
)

func TestCheckFeatures(t *testing.T) {
	want := []string{"a", "b", "c"}
	tests := []struct {
		Name   string
		Got    []string
		Schema int
		Msg    string // "" for no error
	}{
		{"OK", []string{"a", "b", "c"}, 3, ""},
		{"Schema", []string{"a", "b", "c"}, 2, "feature table does not match the model: feature schema version 2, model wants 3"},
		{"Missing", []string{"a", "c"}, 3, "feature table does not match the model: missing b"},
		{"Extra", []string{"a", "b", "c", "d"}, 3, "feature table does not match the model: extra d"},
		{"Renamed", []string{"a", "x", "c"}, 3, "feature table does not match the model: missing b; extra x"},
		{"Reordered", []string{"a", "c", "b"}, 3, "feature table does not match the model: features in another order: column 1 is c, model wants b"},
		{"Repeated", []string{"a", "b", "c", "c"}, 3, "feature table does not match the model: 4 features, model wants 3 (a repeated name)"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			err := train.CheckFeatures(tt.Got, tt.Schema, want, 3)
			if tt.Msg == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.Msg {
				t.Fatalf("got  %v\nwant %s", err, tt.Msg)
			}
			var fe *train.FeatureMismatchError
			if !errors.Is(err, train.ErrFeatures) || !errors.As(err, &fe) {
				t.Errorf("%v does not match ErrFeatures and *FeatureMismatchError", err)
			}
		})
	}
}

func TestFeatureMismatchError_ManyNames(t *testing.T) {
	var got []string
	for i := range 12 {
		got = append(got, string(rune('m'+i)))
	}
	err := train.CheckFeatures(got, 1, []string{"a"}, 1)
	want := "feature table does not match the model: missing a; extra m, n, o, p, q, r, s, t and 4 more"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}
