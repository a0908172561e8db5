package evaluate

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadCSV checks that any windows.csv (report reads one from every
// evaluation directory) gives rows or an error, never a panic, and that
// the rows it gives are written back by WriteCSV as a file that reads as
// the same rows.
func FuzzReadCSV(f *testing.F) {
	var b bytes.Buffer
	if err := WriteCSV(&b, []Row{
		{Policy: "reactive", ChainNodes: 1, Window: 0, WindowStart: 100, PSubmit: 100, PStart: 110, PEnd: 900, Submit: 900, QStart: 1200, RSec: 300, ReactiveRSec: 300},
		{Policy: "xgboost:m", ChainNodes: 8, Window: 3, WindowStart: 7, PSubmit: 8, PStart: 9, PEnd: 10, Submit: 5, QStart: 6, RSec: -4, ReactiveRSec: 0},
	}, 0.5); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(strings.Join(CSVHeader[:csvColumns], ",") + "\n\"a,b\",1,2,3,4,5,6,7,8,9,10\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ReadCSV(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, r := range rows {
			if strings.ContainsRune(r.Policy, '\r') {
				return // encoding/csv reads a quoted \r\n as \n: not a policy name we write
			}
		}
		var out bytes.Buffer
		if err := WriteCSV(&out, rows, 1); err != nil {
			t.Fatalf("WriteCSV: %v", err)
		}
		again, err := ReadCSV(&out)
		if err != nil {
			t.Fatalf("ReadCSV of WriteCSV's output: %v\n%s", err, out.Bytes())
		}
		if len(rows) == 0 && len(again) == 0 {
			return
		}
		if !reflect.DeepEqual(again, rows) {
			t.Fatalf("round trip\n got %+v\nwant %+v", again, rows)
		}
	})
}
