package dqn

import (
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
// converted to float32) and returns them ordered by data offset, with the
// metadata.
func DecodeSafetensors(b []byte) ([]Tensor, map[string]string, error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("%w: %d bytes", ErrSafetensors, len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8) {
		return nil, nil, fmt.Errorf("%w: header length %d beyond %d bytes", ErrSafetensors, n, len(b))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &raw); err != nil {
		return nil, nil, fmt.Errorf("%w: header: %w", ErrSafetensors, err)
	}
	data := b[8+n:]
	var meta map[string]string
	var ts []Tensor
	var offs []int64
	for name, r := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(r, &meta); err != nil {
				return nil, nil, fmt.Errorf("%w: metadata: %w", ErrSafetensors, err)
			}
			continue
		}
		var h stHeader
		if err := json.Unmarshal(r, &h); err != nil {
			return nil, nil, fmt.Errorf("%w: tensor %q: %w", ErrSafetensors, name, err)
		}
		size := map[string]int64{"F32": 4, "F64": 8}[h.DType]
		if size == 0 {
			return nil, nil, fmt.Errorf("%w: tensor %q: dtype %q not supported", ErrSafetensors, name, h.DType)
		}
		cnt := int64(1)
		for _, d := range h.Shape {
			if d < 0 {
				return nil, nil, fmt.Errorf("%w: tensor %q: shape %v", ErrSafetensors, name, h.Shape)
			}
			cnt *= int64(d)
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
		ts = append(ts, t)
		offs = append(offs, lo)
	}
	idx := make([]int, len(ts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(offs[a] - offs[b]) })
	out := make([]Tensor, len(ts))
	for i, j := range idx {
		out[i] = ts[j]
	}
	return out, meta, nil
}
