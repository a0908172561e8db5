package dqn_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/train/dqn"
)

// sameFloat is == with NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func samePoints(a, b []dqn.CurvePoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Episode != y.Episode || x.Start != y.Start || x.ChainNodes != y.ChainNodes || x.Decisions != y.Decisions ||
			x.RSec != y.RSec || !sameFloat(x.Return, y.Return) || !sameFloat(x.Loss, y.Loss) ||
			!sameFloat(x.Epsilon, y.Epsilon) || !sameFloat(x.ValidReturn, y.ValidReturn) {
			return false
		}
	}
	return true
}

func TestReadCurve(t *testing.T) {
	want := []dqn.CurvePoint{
		{Episode: 0, Start: 1700000000, ChainNodes: 1, Decisions: 12, Return: -3.5, RSec: 7200, Loss: math.NaN(), Epsilon: 1, ValidReturn: math.NaN()},
		{Episode: 1, Start: 1700021600, ChainNodes: 8, Decisions: 3, Return: 0.25, RSec: -600, Loss: 0.5, Epsilon: 0.9, ValidReturn: -1.5},
	}
	t.Run("OK", func(t *testing.T) {
		var b bytes.Buffer
		if err := dqn.WriteCurveCSV(&b, want); err != nil {
			t.Fatal(err)
		}
		c, err := dqn.ReadCurve(&b, "curve.csv")
		if err != nil {
			t.Fatal(err)
		}
		if !samePoints(c.Points, want) {
			t.Errorf("got\n%+v\nwant\n%+v", c.Points, want)
		}
		if !c.Has(dqn.CurveValidReturn) || c.Has("nope") {
			t.Errorf("Has: columns %q", c.Columns)
		}
	})
	t.Run("Subset", func(t *testing.T) {
		c, err := dqn.ReadCurve(strings.NewReader("\uFEFF return , episode,extra\n2,7,x\n"), "c.csv")
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Points) != 1 || c.Points[0].Episode != 7 || c.Points[0].Return != 2 || !math.IsNaN(c.Points[0].Loss) {
			t.Errorf("got %+v", c.Points)
		}
	})
	for _, tc := range []struct {
		name, in, field string
		line            int
	}{
		{"ErrEmpty", "", "", 1},
		{"ErrNoReturn", "episode,loss\n", "return", 1},
		{"ErrDuplicate", "episode,return,loss,loss\n", "loss", 1},
		{"ErrEpisode", "episode,return\n0,1\nx,2\n", "episode", 3},
		{"ErrReturnNaN", "episode,return\n0,NaN\n", "return", 2},
		{"ErrDecisions", "episode,return,decisions\n0,1,1.5\n", "decisions", 2},
		{"ErrFields", "episode,return\n0,1,2\n", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dqn.ReadCurve(strings.NewReader(tc.in), "c.csv")
			var ce *dqn.CurveError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *CurveError", err)
			}
			if ce.Path != "c.csv" || ce.Line != tc.line || ce.Field != tc.field {
				t.Errorf("got %s:%d field %q\nwant c.csv:%d field %q", ce.Path, ce.Line, ce.Field, tc.line, tc.field)
			}
		})
	}
}

// FuzzCurveCSV reads arbitrary input as curve.csv and checks that the
// reader never panics, that an error is a *CurveError naming a line of the
// input and a header column (or no field), and that what it reads survives
// a round trip through WriteCurveCSV.
func FuzzCurveCSV(f *testing.F) {
	var b bytes.Buffer
	if err := dqn.WriteCurveCSV(&b, []dqn.CurvePoint{{Episode: 0, Return: -1, Loss: math.NaN(), Epsilon: 1, ValidReturn: math.NaN()},
		{Episode: 1, Start: 1700000000, ChainNodes: 8, Decisions: 40, Return: 2.5, RSec: -3600, Loss: 0.1, Epsilon: 0.5, ValidReturn: 1}}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("episode,return\n0,1\n1,-2e3\n"))
	f.Add([]byte("valid_return,greedy_return,return,note,episode\nNaN,-1,2,\"a, b\",7\n 3 ,x,-1, ,8\n"))
	f.Add([]byte("\uFEFF episode , return ,loss\r\n\r\n0,1,\r\n1 , 2 , 0.5\r\n"))
	f.Add([]byte("episode,return,epsilon,decisions\n0,1e308,+Inf,-7\n1,1e308,0x1p-2,9\n"))
	f.Add([]byte("episode,return,loss\n-9223372036854775808,-1e308,1e308\n9223372036854775807,1e308,-1e300\n"))
	f.Add([]byte("episode,return,loss,loss\n"))
	f.Add([]byte("episode,return\n0,1\n1,2\"\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte{'\n'}) + 1
		c, err := dqn.ReadCurve(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			var ce *dqn.CurveError
			if !errors.As(err, &ce) {
				t.Fatalf("err is %T, not *CurveError: %v", err, err)
			}
			if ce.Path != "fuzz.csv" || ce.Line < 1 || ce.Line > lines {
				t.Fatalf("err names %s:%d in %d lines: %v", ce.Path, ce.Line, lines, err)
			}
			if ce.Field != "" && ce.Field != dqn.CurveEpisode && ce.Field != dqn.CurveReturn && !strings.Contains(string(data), ce.Field) {
				t.Fatalf("err names field %q, not in the input: %v", ce.Field, err)
			}
			return
		}
		if len(c.Points) > lines {
			t.Fatalf("%d points from %d lines", len(c.Points), lines)
		}
		var w bytes.Buffer
		if err := dqn.WriteCurveCSV(&w, c.Points); err != nil {
			t.Fatal(err)
		}
		c2, err := dqn.ReadCurve(&w, "rewritten.csv")
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		if !samePoints(c.Points, c2.Points) {
			t.Fatalf("round trip\n%+v\n%+v", c.Points, c2.Points)
		}
	})
}
