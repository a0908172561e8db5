package ingest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
	"github.com/mirage-hpc/mirage/trace"
)

// readLimited reads input with ingest.Read and returns the jobs' IDs, the
// quarantine records and the summary.
func readLimited(t *testing.T, input string, opts ingest.Options) ([]string, []ingest.QuarantineRecord, ingest.Summary, error) {
	t.Helper()
	var ids []string
	var bad []ingest.QuarantineRecord
	sum, err := ingest.Read(context.Background(), strings.NewReader(input), "in", opts,
		func(j *trace.Job) error { ids = append(ids, j.JobID); return nil },
		func(r ingest.QuarantineRecord) { bad = append(bad, r) })
	return ids, bad, sum, err
}

// TestRead_Limits: an over-long line, a row of a million separators and an
// over-long field are quarantined rows (with their reason and at most the
// first KiB), and the run goes on.
func TestRead_Limits(t *testing.T) {
	tests := []struct {
		Name   string
		Line   string // the bad row, between two good ones
		Opts   ingest.Options
		Reason string
		Err    error
	}{
		{"LineOver16MiB", "3|" + strings.Repeat("x", ingest.DefaultMaxLineBytes) + "|alice|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00",
			ingest.Options{}, "line too long: 16777", ingest.ErrLineTooLong},
		{"LineOverOption", "3|" + strings.Repeat("x", 200) + "|alice|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00",
			ingest.Options{MaxLineBytes: 100}, "the limit is 100 (--max-line-bytes)", ingest.ErrLineTooLong},
		{"Separators", strings.Repeat("|", 2_000_000), ingest.Options{}, "wrong number of fields: 2000001, header has 7", ingest.ErrFieldCount},
		{"FieldOverOption", "3|" + strings.Repeat("x", 200) + "|alice|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00",
			ingest.Options{MaxFieldBytes: 100}, "field too long: 200 bytes, the limit is 100 (--max-field-bytes)", ingest.ErrFieldTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			in := hardHeader + hardRow("1", "a") + tt.Line + "\n" + hardRow("2", "b")
			ids, bad, sum, err := readLimited(t, in, tt.Opts)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(ids, ",") != "1,2" || len(bad) != 1 || !sum.Balanced || sum.RowsRead != 3 {
				t.Fatalf("jobs %v, %d quarantined, summary %+v; want jobs 1,2 and the bad row quarantined", ids, len(bad), sum)
			}
			if bad[0].Line != 3 || !strings.Contains(bad[0].Reason, tt.Reason) || len(bad[0].Raw) > 1024 || !strings.HasPrefix(tt.Line, bad[0].Raw) {
				t.Errorf("record line %d, reason %q, %d raw bytes; want line 3, %q, at most 1024", bad[0].Line, bad[0].Reason, len(bad[0].Raw), tt.Reason)
			}
			tt.Opts.Strict = true
			_, _, _, err = readLimited(t, in, tt.Opts)
			var pe *ingest.ParseError
			if !errors.Is(err, tt.Err) || !errors.As(err, &pe) || pe.Line != 3 {
				t.Errorf("strict: %v, want a *ParseError at line 3 wrapping %v", err, tt.Err)
			}
		})
	}
}

func TestRead_LimitsHeader(t *testing.T) {
	_, _, _, err := readLimited(t, strings.Repeat("|", 5000)+"\n"+hardRow("1", "a"), ingest.Options{Format: ingest.FormatSacct})
	if !errors.Is(err, ingest.ErrFieldCount) || !strings.Contains(err.Error(), "more than 1024") {
		t.Errorf("a header of 5001 columns: %v", err)
	}
	_, _, _, err = readLimited(t, hardHeader+hardRow("1", "a"), ingest.Options{MaxLineBytes: 10})
	if !errors.Is(err, ingest.ErrLineTooLong) {
		t.Errorf("a header over --max-line-bytes: %v", err)
	}
	for _, o := range []ingest.Options{{MaxLineBytes: -1}, {MaxFieldBytes: -1}} {
		if _, _, _, err := readLimited(t, hardHeader+hardRow("1", "a"), o); !errors.Is(err, ingest.ErrBadOption) {
			t.Errorf("%+v: %v, want ErrBadOption", o, err)
		}
	}
}

// TestRead_LimitsSWF: an SWF line over --max-line-bytes is a quarantined
// row like in the other formats, and the jobs around it are kept.
func TestRead_LimitsSWF(t *testing.T) {
	row := func(id string) string { return id + " 0 10 100 4 -1 -1 4 3600 -1 1 100 10 -1 1 1 -1 -1\n" }
	in := "; Version: 2.2\n; UnixStartTime: 1136073600\n; MaxNodes: 10\n; MaxProcs: 40\n" +
		row("1") + "2 " + strings.Repeat("7 ", 200) + "\n" + row("3")
	opts := ingest.Options{Format: ingest.FormatSWF, MaxLineBytes: 100}
	ids, bad, sum, err := readLimited(t, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "1,3" || len(bad) != 1 || !sum.Balanced {
		t.Fatalf("jobs %v, %d quarantined, summary %+v; want jobs 1,3 and the long line quarantined", ids, len(bad), sum)
	}
	if bad[0].Line != 6 || !strings.Contains(bad[0].Reason, "the limit is 100 (--max-line-bytes)") {
		t.Errorf("record line %d, reason %q; want line 6, the limit", bad[0].Line, bad[0].Reason)
	}
	opts.Strict = true
	if _, _, _, err := readLimited(t, in, opts); !errors.Is(err, ingest.ErrLineTooLong) {
		t.Errorf("strict: %v, want ErrLineTooLong", err)
	}
}
