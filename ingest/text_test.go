package ingest

import (
	"bufio"
	"strings"
	"testing"
)

func TestCleanText(t *testing.T) {
	tests := []struct {
		Name, Input, Want string
		Fixed             bool
	}{
		{Name: "ASCII", Input: "train.sh", Want: "train.sh"},
		{Name: "Empty", Input: "", Want: ""},
		{Name: "Unicode", Input: "jöb-名前-🚀", Want: "jöb-名前-🚀"},
		{Name: "InvalidBytes", Input: "bad\xff\xfename", Want: "bad\uFFFD\uFFFDname", Fixed: true},
		{Name: "Truncated", Input: "a\xe2\x82", Want: "a\uFFFD\uFFFD", Fixed: true},
		{Name: "Overlong", Input: "\xc0\xaf", Want: "\uFFFD\uFFFD", Fixed: true},
		{Name: "Surrogate", Input: "\xed\xa0\x80", Want: "\uFFFD\uFFFD\uFFFD", Fixed: true},
		{Name: "NUL", Input: "al\x00ice", Want: "al\uFFFDice", Fixed: true},
		{Name: "Escape", Input: "\x1b[31m", Want: "\uFFFD[31m", Fixed: true},
		{Name: "TAB", Input: "a\tb", Want: "a\uFFFDb", Fixed: true},
		{Name: "DEL", Input: "a\x7f", Want: "a\uFFFD", Fixed: true},
		{Name: "C1", Input: "a\u0085b", Want: "a\uFFFDb", Fixed: true},
		{Name: "ReplacementCharKept", Input: "a\uFFFDb", Want: "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, fixed := cleanText([]byte(tt.Input))
			if got != tt.Want || fixed != tt.Fixed {
				t.Errorf("cleanText(%q)\ngot  %q, %v\nwant %q, %v", tt.Input, got, fixed, tt.Want, tt.Fixed)
			}
			if s, fixed2 := cleanString(tt.Input); s != got || fixed2 != fixed {
				t.Errorf("cleanString(%q) = %q, %v", tt.Input, s, fixed2)
			}
		})
	}
}

func TestSkipBOM(t *testing.T) {
	for _, tt := range []struct {
		Name, Input, Rest string
		BOM               bool
	}{
		{"BOM", "\xef\xbb\xbfJobID|State\n", "JobID|State\n", true},
		{"OnlyBOM", "\xef\xbb\xbf", "", true},
		{"NoBOM", "JobID|State\n", "JobID|State\n", false},
		{"PartialBOM", "\xef\xbbJobID", "\xef\xbbJobID", false},
		{"Short", "J", "J", false},
		{"TwoBOMs", "\xef\xbb\xbf\xef\xbb\xbfx", "\xef\xbb\xbfx", true},
	} {
		t.Run(tt.Name, func(t *testing.T) {
			br := bufio.NewReader(strings.NewReader(tt.Input))
			bom := skipBOM(br)
			rest := new(strings.Builder)
			br.WriteTo(rest)
			if bom != tt.BOM || rest.String() != tt.Rest {
				t.Errorf("skipBOM = %v, rest %q; want %v, %q", bom, rest, tt.BOM, tt.Rest)
			}
		})
	}
}

func TestHasSurrogateEscape(t *testing.T) {
	for in, want := range map[string]bool{
		`"x\ud800y"`:        true,
		`"\uDFFF"`:          true,
		`"\ud83d\ude80"`:    true, // a valid pair: harmless, it decodes without U+FFFD
		`"\u00e9"`:          false,
		`"\\ud800"`:         false, // an escaped backslash, then text
		`"\\\ud800"`:        true,
		`"\uD7FF"`:          false,
		`{"name": "plain"}`: false,
	} {
		if got := hasSurrogateEscape([]byte(in)); got != want {
			t.Errorf("hasSurrogateEscape(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestAddRepair(t *testing.T) {
	for _, tt := range []struct{ List, Repair, Want string }{
		{"", RepairInvalidText, RepairInvalidText},
		{"shifted-fields", RepairInvalidText, "shifted-fields," + RepairInvalidText},
		{"shifted-fields," + RepairInvalidText, RepairInvalidText, "shifted-fields," + RepairInvalidText},
		{"shifted-fields", "", "shifted-fields"},
	} {
		if got := addRepair(tt.List, tt.Repair); got != tt.Want {
			t.Errorf("addRepair(%q, %q) = %q, want %q", tt.List, tt.Repair, got, tt.Want)
		}
	}
}

func TestNewLayout_ErrDuplicateColumn(t *testing.T) {
	for _, tt := range []struct{ Header, Msg string }{
		{"JobID|JobName|JobName", `duplicate column: "JobName" (field 2) and "JobName" (field 3) are the same column`},
		{"jobid|JobID", `duplicate column: "jobid" (field 1) and "JobID" (field 2) are the same column`},
		{"JobID|TimelimitR|TimelimitRaw", `duplicate column: "TimelimitR" (field 2) and "TimelimitRaw" (field 3) are the same column`},
	} {
		_, err := newLayout(splitInto(nil, []byte(tt.Header), '|'), nil)
		if err == nil || err.Error() != tt.Msg {
			t.Errorf("newLayout(%q) = %v\nwant %s", tt.Header, err, tt.Msg)
		}
	}
	if _, err := newLayout(splitInto(nil, []byte("JobID|Comment|Comment"), '|'), nil); err != nil {
		t.Errorf("a repeated unknown column: %v", err)
	}
}
