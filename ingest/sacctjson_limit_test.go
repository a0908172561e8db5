package ingest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/ingest"
)

// TestReadSacctJSON_Limits: a job object over MaxLineBytes is quarantined
// without being held (the decoder resumes after it, in the jobs array and
// in the document), and a job string over MaxFieldBytes quarantines its
// job; the jobs around them are read.
func TestReadSacctJSON_Limits(t *testing.T) {
	big := jsonJob("2", `"name": "j2"`, `"name": "`+strings.Repeat("n\\\"]}{", 20_000)+`"`)
	tests := []struct {
		Name   string
		Input  string
		Opts   ingest.Options
		Reason string
		Line   int64 // of job 2
		Next   int64 // of job 3
		Err    error
	}{
		{"LongJobInDocument", jsonDoc(jsonJob("1"), big, jsonJob("3")) + jsonDoc(jsonJob("4")),
			ingest.Options{MaxLineBytes: 4096}, "line too long: a job object of", 4, 5, ingest.ErrLineTooLong},
		{"LongJobInArray", "[" + jsonJob("1") + ",\n" + big + "\n,\n" + jsonJob("3") + "]\n" + jsonDoc(jsonJob("4")),
			ingest.Options{MaxLineBytes: 4096}, "the limit is 4096 (--max-line-bytes)", 2, 4, ingest.ErrLineTooLong},
		{"LongJobWithinReadAhead", jsonDoc(jsonJob("1"), jsonJob("2", `"name": "j2"`, `"name": "`+strings.Repeat("n", 3000)+`"`), jsonJob("3")) + jsonDoc(jsonJob("4")),
			ingest.Options{MaxLineBytes: 2000}, "a job object of", 4, 5, ingest.ErrLineTooLong},
		{"LongField", jsonDoc(jsonJob("1"), big, jsonJob("3")) + jsonDoc(jsonJob("4")),
			ingest.Options{MaxFieldBytes: 1000}, "name: field too long", 4, 5, ingest.ErrFieldTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			jobs, bad, sum, err := jsonRead(t, []byte(tt.Input), tt.Opts)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, j := range jobs {
				ids = append(ids, j.JobID)
			}
			if strings.Join(ids, ",") != "1,3,4" || len(bad) == 0 || !sum.Balanced {
				t.Fatalf("jobs %v, quarantined %d, summary %+v; want 1,3,4 and job 2 quarantined", ids, len(bad), sum)
			}
			got := (&ingest.ParseError{Path: bad[0].File, Line: bad[0].Line, Field: bad[0].Field, Err: errors.New(bad[0].Reason)}).Error()
			// An over-long job keeps its first KiB; a job with a long
			// field is under the line bound and kept whole.
			if bad[0].Line != tt.Line || !strings.Contains(got, tt.Reason) || len(bad[0].Raw) > 1024 && tt.Err == ingest.ErrLineTooLong {
				t.Errorf("record %s (%d raw bytes); want line %d, %q, at most 1 KiB raw", got, len(bad[0].Raw), tt.Line, tt.Reason)
			}
			if jobs[1].SourceLine != tt.Next {
				t.Errorf("job 3 on line %d, want %d", jobs[1].SourceLine, tt.Next)
			}
			tt.Opts.Strict = true
			if _, _, _, err := jsonRead(t, []byte(tt.Input), tt.Opts); !errors.Is(err, tt.Err) {
				t.Errorf("strict: %v, want %v", err, tt.Err)
			}
		})
	}
}

// TestReadSacctJSON_LimitTruncated: input that ends inside an over-long
// job object is truncated JSON.
func TestReadSacctJSON_LimitTruncated(t *testing.T) {
	in := jsonDoc(jsonJob("1"), jsonJob("2", `"name": "j2"`, `"name": "`+strings.Repeat("n", 20_000)+`"`))
	in = in[:len(in)-200]
	_, _, _, err := jsonRead(t, []byte(in), ingest.Options{MaxLineBytes: 4096})
	if !errors.Is(err, ingest.ErrBadRecord) || !strings.Contains(err.Error(), "truncated JSON") {
		t.Errorf("got %v, want truncated JSON", err)
	}
}
