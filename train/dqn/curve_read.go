package dqn

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/train"
)

// Columns of curve.csv (WriteCurveCSV's header). ReadCurve requires
// episode and return and reads the others when present.
const (
	CurveEpisode     = "episode"
	CurveStart       = "window_start"
	CurveChainNodes  = "chain_nodes"
	CurveDecisions   = "decisions"
	CurveReturn      = "return"
	CurveRSec        = "r_sec"
	CurveLoss        = "loss"
	CurveEpsilon     = "epsilon"
	CurveValidReturn = "valid_return"
)

// Curve is a curve.csv read back.
type Curve struct {
	Path    string   // the file read (names it in errors)
	Columns []string // the header, as read (trimmed)
	// Points are the episodes in file order. An integer column that is
	// absent, empty or "NaN" reads as 0; a float column (loss, epsilon,
	// valid_return) as NaN; return is always finite.
	Points []CurvePoint
}

// Has reports whether the header has column name.
func (c *Curve) Has(name string) bool {
	for _, col := range c.Columns {
		if col == name {
			return true
		}
	}
	return false
}

// CurveError is a malformed curve.csv: the file, the line (1-indexed; 1
// is the header) and, when one value is at fault, its column.
type CurveError struct {
	Path  string
	Line  int
	Field string
	Err   error
}

func (e *CurveError) Error() string {
	s := fmt.Sprintf("%s:%d", e.Path, e.Line)
	if e.Field != "" {
		s += ": field " + e.Field
	}
	return s + ": " + e.Err.Error()
}

func (e *CurveError) Unwrap() error { return e.Err }

// ReadCurveFile reads path, a curve.csv.
func ReadCurveFile(path string) (*Curve, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read curve: %w", err)
	}
	defer f.Close()
	return ReadCurve(f, path)
}

// curveCol is an optional column: its index (-1: absent) and where its
// value goes.
type curveCol struct {
	name string
	i    int
	f    func(*CurvePoint) *float64
	n    func(*CurvePoint) *int64
}

// ReadCurve reads a DQN training curve (WriteCurveCSV's curve.csv): a
// header row naming the columns, then one row per episode. Columns are
// found by name, so files with fewer or reordered columns are read too;
// episode (an integer) and return (a finite number) are required; the
// other known columns are read when present (empty or "NaN": no value);
// unknown columns are ignored. path names the input in errors, which are
// *CurveError for malformed input.
func ReadCurve(r io.Reader, path string) (*Curve, error) {
	c := &Curve{Path: path}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	fail := func(line int, field string, err error) (*Curve, error) {
		return nil, &CurveError{Path: path, Line: line, Field: field, Err: err}
	}
	csvFail := func(err error) (*Curve, error) {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return fail(pe.Line, "", fmt.Errorf("column %d: %w", pe.Column, pe.Err))
		}
		return nil, fmt.Errorf("read curve %s: %w", path, err)
	}
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return fail(1, "", errors.New("empty file, want a header row naming at least episode and return"))
	}
	if err != nil {
		return csvFail(err)
	}
	idx := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF")
		}
		h = strings.TrimSpace(h)
		c.Columns = append(c.Columns, h)
		if h == "" {
			continue
		}
		if _, dup := idx[h]; dup {
			return fail(1, h, errors.New("column named twice in the header"))
		}
		idx[h] = i
	}
	for _, req := range []string{CurveEpisode, CurveReturn} {
		if _, ok := idx[req]; !ok {
			return fail(1, req, fmt.Errorf("no such column in the header %q (want at least episode and return)", strings.Join(c.Columns, ",")))
		}
	}
	col := func(name string) int {
		if i, ok := idx[name]; ok {
			return i
		}
		return -1
	}
	opt := []curveCol{
		{name: CurveStart, n: func(p *CurvePoint) *int64 { return &p.Start }},
		{name: CurveRSec, n: func(p *CurvePoint) *int64 { return &p.RSec }},
		{name: CurveLoss, f: func(p *CurvePoint) *float64 { return &p.Loss }},
		{name: CurveEpsilon, f: func(p *CurvePoint) *float64 { return &p.Epsilon }},
		{name: CurveValidReturn, f: func(p *CurvePoint) *float64 { return &p.ValidReturn }},
	}
	for i := range opt {
		opt[i].i = col(opt[i].name)
	}
	iEp, iRet, iNodes, iDec := idx[CurveEpisode], idx[CurveReturn], col(CurveChainNodes), col(CurveDecisions)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil {
			return csvFail(err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return fail(line, "", fmt.Errorf("%d fields, the header has %d", len(rec), len(header)))
		}
		p := CurvePoint{Loss: math.NaN(), Epsilon: math.NaN(), ValidReturn: math.NaN()}
		v := strings.TrimSpace(rec[iEp])
		if p.Episode, err = strconv.Atoi(v); err != nil {
			return fail(line, CurveEpisode, fmt.Errorf("%q is not an integer", v))
		}
		v = strings.TrimSpace(rec[iRet])
		if p.Return, err = strconv.ParseFloat(v, 64); err != nil || math.IsNaN(p.Return) || math.IsInf(p.Return, 0) {
			return fail(line, CurveReturn, fmt.Errorf("%q is not a finite number", v))
		}
		for _, ic := range []struct {
			name string
			i    int
			dst  *int
		}{{CurveChainNodes, iNodes, &p.ChainNodes}, {CurveDecisions, iDec, &p.Decisions}} {
			n, err := intField(rec, ic.i)
			if err != nil {
				return fail(line, ic.name, err)
			}
			*ic.dst = int(n)
		}
		for _, o := range opt {
			if o.i < 0 {
				continue
			}
			if o.n != nil {
				n, err := intField(rec, o.i)
				if err != nil {
					return fail(line, o.name, err)
				}
				*o.n(&p) = n
				continue
			}
			v := strings.TrimSpace(rec[o.i])
			if v == "" {
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fail(line, o.name, fmt.Errorf("%q is not a number (NaN or empty: no value)", v))
			}
			*o.f(&p) = f
		}
		c.Points = append(c.Points, p)
	}
}

// intField reads rec[i] as a decimal int64; absent (i < 0), empty or
// "NaN" is 0.
func intField(rec []string, i int) (int64, error) {
	if i < 0 {
		return 0, nil
	}
	v := strings.TrimSpace(rec[i])
	if v == "" || v == "NaN" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer (NaN or empty: no value)", v)
	}
	return n, nil
}

// ReadManifest reads dir's manifest.json without the weights or the seal
// (Open checks them and loads the weights), for tools that describe a
// model. A missing file is an error wrapping fs.ErrNotExist; a manifest
// of another kind, or larger than train.MaxManifestBytes, wraps
// train.ErrBadModel.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := train.ReadBounded(path, train.MaxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read dqn manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read dqn manifest %s: %w: %w", path, train.ErrBadModel, err)
	}
	if m.Kind != train.KindDQN {
		return nil, fmt.Errorf("read dqn manifest %s: %w: kind %q, want %q", path, train.ErrBadModel, m.Kind, train.KindDQN)
	}
	return &m, nil
}
