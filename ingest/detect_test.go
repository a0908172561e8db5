package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		Name  string
		Input string
		Want  ingest.Format
		Err   error
	}{
		{Name: "Parsable2", Input: "JobID|State\n1|COMPLETED\n", Want: ingest.FormatSacct},
		{Name: "Parsable", Input: "JobID|State|\n1|COMPLETED|\n", Want: ingest.FormatSacct},
		{Name: "Tab", Input: "JobID\tState\n1\tCOMPLETED\n", Want: ingest.FormatSacct},
		{Name: "JobIDRawOnly", Input: "JobIDRaw|State\n8|COMPLETED\n", Want: ingest.FormatSacct},
		{Name: "JobIDNotFirst", Input: "State|JobID\nCOMPLETED|1\n", Want: ingest.FormatSacct},
		{Name: "LowercaseHeader", Input: "jobid|state\n1|COMPLETED\n", Want: ingest.FormatSacct},
		{Name: "CRLF", Input: "JobID|State\r\n1|COMPLETED\r\n", Want: ingest.FormatSacct},
		{Name: "LeadingBlankLines", Input: "\n\n  \nJobID|State\n1|COMPLETED\n", Want: ingest.FormatSacct},
		{Name: "HeaderOnly", Input: "JobID|State|Reason|Submit|Eligible\n", Want: ingest.FormatSacct},
		{Name: "OneColumnHeaderOnly", Input: "JobID\n", Want: ingest.FormatSacct},
		{Name: "OneColumn", Input: "JobID\n1\n2\n3_0\n", Want: ingest.FormatSacct},
		{Name: "NoTrailingNewline", Input: "JobID|State\n1|COMPLETED", Want: ingest.FormatSacct},
		{
			Name:  "Mirage",
			Input: "4\n  JobID JobName    UID\n------ ------- ------\n1\ta\t00001\n2\tb\t00002\n",
			Want:  ingest.FormatMirage,
		},
		{
			Name:  "MirageNoCount",
			Input: "  JobID JobName    UID\n------ ------- ------\n1\ta\t00001\n",
			Want:  ingest.FormatMirage,
		},
		{Name: "MirageCountAndHeaderOnly", Input: "2\n  JobID JobName    UID\n------ ------- ------\n", Want: ingest.FormatMirage},
		{Name: "JSONObject", Input: "{\n  \"meta\": {}\n}\n", Want: ingest.FormatSacctJSON},
		{Name: "JSONArray", Input: "[{\"job_id\": 1}]\n", Want: ingest.FormatSacctJSON},
		{Name: "JSONIndented", Input: "\n   {\"jobs\": []}", Want: ingest.FormatSacctJSON},
		{Name: "SWFComment", Input: "; Version: 2.2\n1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n", Want: ingest.FormatSWF},
		{Name: "SWFNoHeader", Input: "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n", Want: ingest.FormatSWF},
		{Name: "SWFDecimals", Input: "1 0 10 100 4 2.5 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n", Want: ingest.FormatSWF},
		{Name: "ErrEmpty", Input: "", Err: ingest.ErrEmptyInput},
		{Name: "ErrBlank", Input: "\n  \n\t\n", Err: ingest.ErrEmptyInput},
		{
			Name:  "ErrFixedWidth",
			Input: "JobID           JobName  State\n------------ ---------- ----------\n1                  wrap  COMPLETED\n",
			Err:   ingest.ErrFixedWidth,
		},
		{Name: "ErrFixedWidthHeaderOnly", Input: "JobID    State\n------ --------\n", Err: ingest.ErrFixedWidth},
		{Name: "ErrFixedWidthOneColumn", Input: "       JobID\n------------\n           1\n", Err: ingest.ErrFixedWidth},
		{Name: "ErrFixedWidthNoDashes", Input: "JobID JobName\n1 wrap\n", Err: ingest.ErrUnknownFormat},
		{Name: "ErrLetterDelimiter", Input: "JobIDtJobNametState\n1twraptCOMPLETED\n", Err: ingest.ErrUnknownFormat},
		{Name: "ErrNoJobID", Input: "Job|State\n1|COMPLETED\n", Err: ingest.ErrUnknownFormat},
		{Name: "ErrText", Input: "hello world\n", Err: ingest.ErrUnknownFormat},
		{Name: "ErrSWFShort", Input: "1 0 10 100 4\n", Err: ingest.ErrUnknownFormat},
		{Name: "ErrCountWithoutHeader", Input: "24779\n1\t2\t3\n", Err: ingest.ErrUnknownFormat},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, err := ingest.Detect([]byte(tt.Input))
			if tt.Err != nil {
				if !errors.Is(err, tt.Err) {
					t.Fatalf("Detect error:\ngot  %v (format %v)\nwant %v", err, got, tt.Err)
				}
				if got != ingest.FormatAuto {
					t.Errorf("Detect format with an error = %v, want auto", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Detect: %v", err)
			}
			if got != tt.Want {
				t.Errorf("Detect:\ngot  %v\nwant %v", got, tt.Want)
			}
		})
	}
}

// TestDetect_Fixtures checks Detect on every sacct fixture: sacct, except
// the cases refused as a whole (which Detect itself refuses, except a
// header-only dump, which is sacct until its reader finds no rows).
func TestDetect_Fixtures(t *testing.T) {
	for name, path := range fixtureCases(t, filepath.Join("testdata", "sacct")) {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ingest.Detect(data)
			want, bad := sacctErrCases[name]
			if bad && want != ingest.ErrHeaderOnly {
				if !errors.Is(err, want) {
					t.Errorf("Detect error:\ngot  %v\nwant %v", err, want)
				}
				return
			}
			if err != nil || got != ingest.FormatSacct {
				t.Errorf("Detect:\ngot  %v, %v\nwant %v", got, err, ingest.FormatSacct)
			}
		})
	}
	for name, path := range fixtureCases(t, filepath.Join("testdata", "mirage")) {
		t.Run("mirage/"+name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := ingest.Detect(data); err != nil || got != ingest.FormatMirage {
				t.Errorf("Detect:\ngot  %v, %v\nwant %v", got, err, ingest.FormatMirage)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		Input string
		Want  ingest.Format
		Err   error
	}{
		{"", ingest.FormatAuto, nil},
		{"auto", ingest.FormatAuto, nil},
		{"sacct", ingest.FormatSacct, nil},
		{"parsable", ingest.FormatSacct, nil},
		{"Parsable2", ingest.FormatSacct, nil},
		{"json", ingest.FormatSacctJSON, nil},
		{"sacct-json", ingest.FormatSacctJSON, nil},
		{" mirage ", ingest.FormatMirage, nil},
		{"SWF", ingest.FormatSWF, nil},
		{"csv", ingest.FormatCSV, nil},
		{"tsv", ingest.FormatAuto, ingest.ErrUnknownFormat},
	}
	for _, tt := range tests {
		got, err := ingest.ParseFormat(tt.Input)
		if !errors.Is(err, tt.Err) || got != tt.Want {
			t.Errorf("ParseFormat(%q):\ngot  %v, %v\nwant %v, %v", tt.Input, got, err, tt.Want, tt.Err)
		}
		if err == nil && tt.Input != "" {
			if back, err := ingest.ParseFormat(got.String()); err != nil || back != got {
				t.Errorf("ParseFormat(%v.String()) = %v, %v", got, back, err)
			}
		}
	}
}
