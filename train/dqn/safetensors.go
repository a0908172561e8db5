package dqn

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ErrSafetensors is wrapped by ReadSafetensors' errors.
var ErrSafetensors = errors.New("invalid safetensors file")

// MaxSafetensorsHeader bounds the JSON header of a safetensors file,
// bytes (the format's own limit, 100 MB).
const MaxSafetensorsHeader = 100_000_000

// Tensor is a named float tensor. Data is row-major.
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
}

type stHeader struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// EncodeSafetensors returns the safetensors encoding of ts (dtype F32):
// an 8-byte little-endian header length, a JSON header (tensors by name,
// plus __metadata__ when meta is not empty) padded with spaces to a
// multiple of 8, then the raw little-endian data in ts' order.
func EncodeSafetensors(ts []Tensor, meta map[string]string) ([]byte, error) {
	hdr := map[string]any{}
	if len(meta) > 0 {
		hdr["__metadata__"] = meta
	}
	var off int64
	for _, t := range ts {
		n := 1
		for _, d := range t.Shape {
			n *= d
		}
		if n != len(t.Data) || t.Name == "" || t.Name == "__metadata__" {
			return nil, fmt.Errorf("safetensors: tensor %q: shape %v, %d values", t.Name, t.Shape, len(t.Data))
		}
		if _, dup := hdr[t.Name]; dup {
			return nil, fmt.Errorf("safetensors: tensor %q twice", t.Name)
		}
		hdr[t.Name] = stHeader{DType: "F32", Shape: t.Shape, DataOffsets: [2]int64{off, off + 4*int64(n)}}
		off += 4 * int64(n)
	}
	h, err := json.Marshal(hdr)
	if err != nil {
		return nil, err
	}
	if pad := (8 - len(h)%8) % 8; pad > 0 {
		h = append(h, strings.Repeat(" ", pad)...)
	}
	out := make([]byte, 8, 8+len(h)+int(off))
	binary.LittleEndian.PutUint64(out, uint64(len(h)))
	out = append(out, h...)
	for _, t := range ts {
		for _, v := range t.Data {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
	}
	return out, nil
}

// DecodeSafetensors parses a safetensors file of F32 or F64 tensors (F64
// converted to float32) and returns them ordered by data offsets (begin,
// then end: a tensor with no values comes before one that starts where it
// does), then name, with the metadata. It holds the file to the format:
// each tensor's header has exactly the keys dtype, shape and
// data_offsets (spelled so: JSON's case-insensitive field matching would
// accept "dtYpe"), data_offsets is two offsets, and the tensors' data
// cover the byte buffer without gaps or overlaps, and the header is at
// most MaxSafetensorsHeader bytes.
func DecodeSafetensors(b []byte) ([]Tensor, map[string]string, error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("%w: %d bytes", ErrSafetensors, len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > MaxSafetensorsHeader {
		return nil, nil, fmt.Errorf("%w: header length %d, more than %d", ErrSafetensors, n, MaxSafetensorsHeader)
	}
	if n > uint64(len(b)-8) {
		return nil, nil, fmt.Errorf("%w: header length %d beyond %d bytes", ErrSafetensors, n, len(b))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &raw); err != nil {
		return nil, nil, fmt.Errorf("%w: header: %w", ErrSafetensors, err)
	}
	data := b[8+n:]
	var meta map[string]string
	type placed struct {
		t      Tensor
		lo, hi int64
	}
	var ps []placed
	for name, r := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(r, &meta); err != nil {
				return nil, nil, fmt.Errorf("%w: metadata: %w", ErrSafetensors, err)
			}
			continue
		}
		h, err := parseTensorHeader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: tensor %q: %w", ErrSafetensors, name, err)
		}
		size := map[string]int64{"F32": 4, "F64": 8}[h.DType]
		if size == 0 {
			return nil, nil, fmt.Errorf("%w: tensor %q: dtype %q not supported", ErrSafetensors, name, h.DType)
		}
		cnt, empty := int64(1), slices.Contains(h.Shape, 0)
		for _, d := range h.Shape {
			if d < 0 || !empty && int64(d) > int64(len(data))/cnt { // more values than data bytes: no overflow below
				return nil, nil, fmt.Errorf("%w: tensor %q: shape %v for %d data bytes", ErrSafetensors, name, h.Shape, len(data))
			}
			cnt *= int64(d)
		}
		if empty {
			cnt = 0
		}
		lo, hi := h.DataOffsets[0], h.DataOffsets[1]
		if lo < 0 || hi < lo || hi > int64(len(data)) || hi-lo != cnt*size {
			return nil, nil, fmt.Errorf("%w: tensor %q: offsets %v for %d values of %s", ErrSafetensors, name, h.DataOffsets, cnt, h.DType)
		}
		t := Tensor{Name: name, Shape: h.Shape, Data: make([]float32, cnt)}
		for i := range t.Data {
			p := data[lo+int64(i)*size:]
			if size == 4 {
				t.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(p))
			} else {
				t.Data[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(p)))
			}
		}
		ps = append(ps, placed{t: t, lo: lo, hi: hi})
	}
	slices.SortFunc(ps, func(a, b placed) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		if c := cmp.Compare(a.hi, b.hi); c != 0 {
			return c
		}
		return strings.Compare(a.t.Name, b.t.Name)
	})
	out := make([]Tensor, len(ps))
	var end int64
	for i, p := range ps {
		if p.lo != end {
			return nil, nil, fmt.Errorf("%w: tensor %q: data at bytes %d..%d, expected from %d (no gaps or overlaps)", ErrSafetensors, p.t.Name, p.lo, p.hi, end)
		}
		end = p.hi
		out[i] = p.t
	}
	if end != int64(len(data)) {
		return nil, nil, fmt.Errorf("%w: tensors cover %d of %d data bytes", ErrSafetensors, end, len(data))
	}
	return out, meta, nil
}

// parseTensorHeader reads one tensor's header: exactly the keys dtype,
// shape and data_offsets (two offsets), case included.
func parseTensorHeader(r json.RawMessage) (stHeader, error) {
	var h stHeader
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r, &fields); err != nil {
		return h, err
	}
	keys := []string{"dtype", "shape", "data_offsets"}
	for k := range fields {
		if !slices.Contains(keys, k) {
			return h, fmt.Errorf("unknown key %q (want %s)", k, strings.Join(keys, ", "))
		}
	}
	for _, k := range keys {
		if _, ok := fields[k]; !ok {
			return h, fmt.Errorf("no %q", k)
		}
	}
	var offs []int64
	if err := json.Unmarshal(fields["dtype"], &h.DType); err != nil {
		return h, fmt.Errorf("dtype: %w", err)
	}
	if err := json.Unmarshal(fields["shape"], &h.Shape); err != nil {
		return h, fmt.Errorf("shape: %w", err)
	}
	if err := json.Unmarshal(fields["data_offsets"], &offs); err != nil || len(offs) != 2 {
		return h, fmt.Errorf("data_offsets %s: want two offsets", fields["data_offsets"])
	}
	h.DataOffsets = [2]int64{offs[0], offs[1]}
	return h, nil
}
