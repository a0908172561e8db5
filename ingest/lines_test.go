package ingest

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitInto(t *testing.T) {
	for _, line := range []string{
		"", "|", "||", "a", "a|b", "1234567|", "12345678|9", "|12345678", "a||b|||c",
		"7332|7332|lammps_2|u191|803241|ATM23677|gpu-a100|normal|CANCELLED by 803241|0:0",
		"\x7c\x7d\x7b\x00\xff|\x7c\x7c\x7c\x7c\x7c\x7c\x7c\x7c\x7c",
	} {
		got := splitInto(nil, []byte(line), '|')
		want := bytes.Split([]byte(line), []byte{'|'})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("splitInto(%q) mismatch (-want +got):\n%s", line, diff)
		}
	}
}

func FuzzSplitInto(f *testing.F) {
	f.Add([]byte("a|b||c|12345678|"), byte('|'))
	f.Add([]byte("a\tb"), byte('\t'))
	f.Fuzz(func(t *testing.T, line []byte, sep byte) {
		got := splitInto(nil, line, sep)
		want := bytes.Split(line, []byte{sep})
		if len(got) != len(want) {
			t.Fatalf("splitInto(%q, %q): %d fields, want %d", line, sep, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("splitInto(%q, %q)[%d] = %q, want %q", line, sep, i, got[i], want[i])
			}
		}
	})
}
