package advise_test

import (
	"slices"
	"testing"

	"github.com/mirage-hpc/mirage/advise"
)

// TestSbatchArgs_ScriptLikeAnOption: a successor script whose path starts
// with - reaches sbatch as ./PATH, never as an option of sbatch.
func TestSbatchArgs_ScriptLikeAnOption(t *testing.T) {
	for _, tt := range []struct{ script, want string }{
		{"--wrap=touch pwned", "./--wrap=touch pwned"},
		{"-x.sbatch", "./-x.sbatch"},
		{"q.sbatch", "q.sbatch"},
		{"/abs/-q.sbatch", "/abs/-q.sbatch"},
	} {
		got := advise.SbatchArgs(advise.SubmitOptions{Script: tt.script})
		if want := []string{"--parsable", tt.want}; !slices.Equal(got, want) {
			t.Errorf("SbatchArgs(%q) = %q, want %q", tt.script, got, want)
		}
	}
}

// TestSbatchArgs_TimeMin: a time-min reaches sbatch as --time-min in
// Slurm's format, after the dependency and before the script; none adds
// nothing.
func TestSbatchArgs_TimeMin(t *testing.T) {
	for _, tt := range []struct {
		o    advise.SubmitOptions
		want []string
	}{
		{advise.SubmitOptions{Script: "q.sbatch", AfterJob: "10", TimeMinSec: 6 * 3600}, []string{"--parsable", "--dependency=afterany:10", "--time-min=06:00:00", "q.sbatch"}},
		{advise.SubmitOptions{Script: "q.sbatch", TimeMinSec: 86400 + 90*60 + 5}, []string{"--parsable", "--time-min=1-01:30:05", "q.sbatch"}},
		{advise.SubmitOptions{Script: "q.sbatch"}, []string{"--parsable", "q.sbatch"}},
	} {
		if got := advise.SbatchArgs(tt.o); !slices.Equal(got, tt.want) {
			t.Errorf("SbatchArgs(%+v) = %q, want %q", tt.o, got, tt.want)
		}
	}
}
