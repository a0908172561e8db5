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
