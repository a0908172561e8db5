package dqn

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// pbField is one field of a protobuf message, as read by pbFields.
type pbField struct {
	num  int
	wire int
	v    uint64 // varint / fixed value
	b    []byte // length-delimited payload
}

// pbFields splits a protobuf message into its fields (no schema: only the
// wire format).
func pbFields(t *testing.T, b []byte) []pbField {
	t.Helper()
	var fs []pbField
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad tag varint")
		}
		b = b[n:]
		f := pbField{num: int(key >> 3), wire: int(key & 7)}
		switch f.wire {
		case 0:
			f.v, n = binary.Uvarint(b)
			if n <= 0 {
				t.Fatalf("field %d: bad varint", f.num)
			}
			b = b[n:]
		case 1:
			f.v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 5:
			f.v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				t.Fatalf("field %d: bad length", f.num)
			}
			f.b, b = b[n:n+int(l)], b[n+int(l):]
		default:
			t.Fatalf("field %d: wire type %d", f.num, f.wire)
		}
		fs = append(fs, f)
	}
	return fs
}

// pbGet returns the fields numbered num.
func pbGet(fs []pbField, num int) []pbField {
	var out []pbField
	for _, f := range fs {
		if f.num == num {
			out = append(out, f)
		}
	}
	return out
}

// pbOne returns the only field numbered num.
func pbOne(t *testing.T, fs []pbField, num int) pbField {
	t.Helper()
	g := pbGet(fs, num)
	if len(g) != 1 {
		t.Fatalf("field %d occurs %d times, want 1", num, len(g))
	}
	return g[0]
}

func pbStrings(fs []pbField, num int) []string {
	var out []string
	for _, f := range pbGet(fs, num) {
		out = append(out, string(f.b))
	}
	return out
}

func testNet(t *testing.T, sizes []int, seed uint64) *MLP {
	t.Helper()
	net, err := NewMLP(sizes, seed)
	if err != nil {
		t.Fatal(err)
	}
	// Non-zero biases so that the bias path is exercised.
	r := rand.New(rand.NewPCG(seed, 99))
	for l := range net.B {
		for i := range net.B[l] {
			net.B[l][i] = r.NormFloat64() * 0.1
		}
	}
	return net
}

func TestEncodeONNX_Structure(t *testing.T) {
	sizes := []int{79, 128, 128, 2}
	net := testNet(t, sizes, 7)
	meta := map[string]string{"mirage": "v1.2.3", "go": "go1.26", "a": "b"}
	b, err := EncodeONNX(net, meta)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := EncodeONNX(net, map[string]string{"a": "b", "go": "go1.26", "mirage": "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Fatal("EncodeONNX is not deterministic")
	}
	t.Logf("model.onnx for %v: %d bytes", sizes, len(b))

	model := pbFields(t, b)
	if v := pbOne(t, model, 1).v; v != 8 { // ir_version
		t.Errorf("ir_version %d", v)
	}
	if got := pbStrings(model, 2); !slices.Equal(got, []string{"mirage"}) {
		t.Errorf("producer_name %q", got)
	}
	if got := pbStrings(model, 3); !slices.Equal(got, []string{"v1.2.3"}) {
		t.Errorf("producer_version %q", got)
	}
	opset := pbGet(model, 8)
	if len(opset) != 1 {
		t.Fatalf("%d opset_imports", len(opset))
	}
	ops0 := pbFields(t, opset[0].b)
	if d := pbStrings(ops0, 1); len(d) > 1 || (len(d) == 1 && d[0] != "") {
		t.Errorf("opset domain %q", d)
	}
	if v := pbOne(t, ops0, 2).v; v != 13 {
		t.Errorf("opset version %d", v)
	}
	var keys []string
	for _, p := range pbGet(model, 14) {
		e := pbFields(t, p.b)
		k := string(pbOne(t, e, 1).b)
		if v := string(pbOne(t, e, 2).b); v != meta[k] {
			t.Errorf("metadata %s = %q, want %q", k, v, meta[k])
		}
		keys = append(keys, k)
	}
	if !slices.Equal(keys, []string{"a", "go", "mirage"}) {
		t.Errorf("metadata keys %v", keys)
	}

	graph := pbFields(t, pbOne(t, model, 7).b)
	if got := pbStrings(graph, 2); !slices.Equal(got, []string{"mirage_dqn"}) {
		t.Errorf("graph name %q", got)
	}
	var ops []string
	for i, nf := range pbGet(graph, 1) {
		n := pbFields(t, nf.b)
		op := string(pbOne(t, n, 4).b)
		ops = append(ops, op)
		if op != "Gemm" {
			continue
		}
		l := i / 2
		if got, want := pbStrings(n, 1)[1:], []string{fmt.Sprintf("l%d.weight", l), fmt.Sprintf("l%d.bias", l)}; !slices.Equal(got, want) {
			t.Errorf("Gemm %d inputs %q, want %q", l, got, want)
		}
		attrs := pbGet(n, 5)
		if len(attrs) != 1 {
			t.Fatalf("Gemm %d: %d attributes", l, len(attrs))
		}
		a := pbFields(t, attrs[0].b)
		if name, i, typ := string(pbOne(t, a, 1).b), pbOne(t, a, 3).v, pbOne(t, a, 20).v; name != "transB" || i != 1 || typ != 2 {
			t.Errorf("Gemm %d attribute %s=%d type %d, want transB=1 type INT(2)", l, name, i, typ)
		}
	}
	if want := []string{"Gemm", "Relu", "Gemm", "Relu", "Gemm"}; !slices.Equal(ops, want) {
		t.Errorf("op types %v, want %v", ops, want)
	}

	inits := pbGet(graph, 5)
	if len(inits) != 6 {
		t.Fatalf("%d initializers", len(inits))
	}
	for i, f := range inits {
		l := i / 2
		in, out := sizes[l], sizes[l+1]
		tf := pbFields(t, f.b)
		name := string(pbOne(t, tf, 8).b)
		var dims []int
		for _, d := range pbGet(tf, 1) {
			dims = append(dims, int(d.v))
		}
		wantName, wantDims, src := fmt.Sprintf("l%d.weight", l), []int{out, in}, net.W[l]
		if i%2 == 1 {
			wantName, wantDims, src = fmt.Sprintf("l%d.bias", l), []int{out}, net.B[l]
		}
		if name != wantName || !slices.Equal(dims, wantDims) {
			t.Errorf("initializer %d: %s %v, want %s %v", i, name, dims, wantName, wantDims)
		}
		if dt := pbOne(t, tf, 2).v; dt != 1 {
			t.Errorf("%s data_type %d, want FLOAT(1)", name, dt)
		}
		raw := pbOne(t, tf, 9).b
		if len(raw) != 4*len(src) {
			t.Fatalf("%s raw_data %d bytes, want %d", name, len(raw), 4*len(src))
		}
		for j, v := range src {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])); got != float32(v) {
				t.Fatalf("%s[%d] = %v, want %v", name, j, got, float32(v))
			}
		}
	}

	checkIO := func(num int, name string, n int) {
		t.Helper()
		vs := pbGet(graph, num)
		if len(vs) != 1 {
			t.Fatalf("graph field %d: %d values", num, len(vs))
		}
		v := pbFields(t, vs[0].b)
		if got := string(pbOne(t, v, 1).b); got != name {
			t.Errorf("value %q, want %q", got, name)
		}
		tt := pbFields(t, pbOne(t, pbFields(t, pbOne(t, v, 2).b), 1).b)
		if et := pbOne(t, tt, 1).v; et != 1 {
			t.Errorf("%s elem_type %d", name, et)
		}
		dims := pbGet(pbFields(t, pbOne(t, tt, 2).b), 1)
		if len(dims) != 2 {
			t.Fatalf("%s: %d dims", name, len(dims))
		}
		if p := string(pbOne(t, pbFields(t, dims[0].b), 2).b); p != "batch" {
			t.Errorf("%s dim 0 %q", name, p)
		}
		if d := pbOne(t, pbFields(t, dims[1].b), 1).v; int(d) != n {
			t.Errorf("%s dim 1 %d, want %d", name, d, n)
		}
	}
	checkIO(11, "features", 79)
	checkIO(12, "q_values", 2)
}

func TestEncodeONNX_Malformed(t *testing.T) {
	net := testNet(t, []int{3, 2}, 1)
	net.W[0] = net.W[0][:5]
	if _, err := EncodeONNX(net, nil); err == nil {
		t.Error("no error for a short weight matrix")
	}
	if _, err := EncodeONNX(&MLP{Sizes: []int{3}}, nil); err == nil {
		t.Error("no error for a single layer size")
	}
}

const python3 = "/usr/bin/python3"

// TestEncodeONNX_Python checks the export with the onnx Python package
// (checker, shape inference) and compares a numpy evaluation of the graph
// with the Go forward pass.
func TestEncodeONNX_Python(t *testing.T) {
	if _, err := os.Stat(python3); err != nil {
		t.Skipf("skipping: %s not found (the ONNX check needs python3 with the onnx module, e.g. apt-get install python3-onnx)", python3)
	}
	if out, err := exec.Command(python3, "-c", "import onnx, numpy").CombinedOutput(); err != nil {
		t.Skipf("skipping: %s cannot import onnx/numpy (install python3-onnx, see scripts/setup.sh): %v: %s", python3, err, bytes.TrimSpace(out))
	}
	for _, tc := range []struct {
		sizes []int
		seed  uint64
	}{
		{[]int{79, 128, 128, 2}, 11},
		{[]int{5, 3, 2}, 12},
	} {
		t.Run(fmt.Sprint(tc.sizes), func(t *testing.T) {
			net := testNet(t, tc.sizes, tc.seed)
			meta := map[string]string{"mirage": "test"}
			b, err := EncodeONNX(net, meta)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(tc.seed, 0x1e57))
			xs := make([][]float64, 16)
			for i := range xs {
				xs[i] = make([]float64, tc.sizes[0])
				for j := range xs[i] {
					// float32-representable inputs: the model is float32.
					xs[i][j] = float64(float32(r.NormFloat64()))
				}
			}
			dir := t.TempDir()
			model, inputs := filepath.Join(dir, ONNXFile), filepath.Join(dir, "inputs.json")
			ib, err := json.Marshal(xs)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(model, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(inputs, ib, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(python3, filepath.Join("testdata", "onnx_check.py"), model, inputs)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("onnx_check.py: %v\n%s", err, stderr.String())
			}
			var res struct {
				Outputs     [][]float64       `json:"outputs"`
				Canonical   bool              `json:"canonical"`
				IRVersion   int               `json:"ir_version"`
				Opset       [][]any           `json:"opset"`
				InputShape  []any             `json:"input_shape"`
				OutputShape []any             `json:"output_shape"`
				Metadata    map[string]string `json:"metadata"`
				Producer    []string          `json:"producer"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("onnx_check.py output: %v\n%s", err, out)
			}
			if !res.Canonical {
				t.Error("protobuf re-serialises the model differently (fields not in field-number order?)")
			}
			if res.IRVersion != 8 || fmt.Sprint(res.Opset) != "[[ 13]]" ||
				fmt.Sprint(res.InputShape) != fmt.Sprint([]any{"batch", tc.sizes[0]}) ||
				fmt.Sprint(res.OutputShape) != "[batch 2]" ||
				res.Metadata["mirage"] != "test" || !slices.Equal(res.Producer, []string{"mirage", "test"}) {
				t.Errorf("onnx reports %s", out)
			}

			// The Go reference: the same net with weights rounded to float32.
			ref := net.Clone()
			for _, p := range ref.Params() {
				for i, v := range p {
					p[i] = float64(float32(v))
				}
			}
			if len(res.Outputs) != len(xs) {
				t.Fatalf("%d outputs for %d inputs", len(res.Outputs), len(xs))
			}
			worst := 0.0
			for i, x := range xs {
				want := ref.Forward(nil, x)
				got := res.Outputs[i]
				if len(got) != len(want) {
					t.Fatalf("input %d: %d outputs, want %d", i, len(got), len(want))
				}
				for k := range want {
					d := math.Abs(got[k] - want[k])
					worst = max(worst, d/max(1, math.Abs(want[k])))
					if d > 1e-4*max(1, math.Abs(want[k])) {
						t.Errorf("input %d output %d: onnx %v, Go %v", i, k, got[k], want[k])
					}
				}
			}
			t.Logf("%d inputs: max |onnx - Go| / max(1, |Go|) = %.3g", len(xs), worst)
		})
	}
}

func TestWriteArtifact_ONNX(t *testing.T) {
	net := testNet(t, []int{4, 6, 2}, 3)
	dir := t.TempDir()
	m := &Manifest{Versions: map[string]string{"mirage": "v0.0.1"}}
	if err := WriteArtifact(dir, net, nil, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ONNXFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := EncodeONNX(net, m.Versions)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Error("model.onnx differs from EncodeONNX(net, m.Versions)")
	}
	mb, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var got Manifest
	if err := json.Unmarshal(mb, &got); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if h := hex.EncodeToString(sum[:]); got.Files[ONNXFile].SHA256 != h {
		t.Errorf("manifest sha256 of %s = %q, want %q", ONNXFile, got.Files[ONNXFile].SHA256, h)
	}
	if _, ok := got.Files[WeightsFile]; !ok {
		t.Errorf("manifest lost %s: %v", WeightsFile, got.Files)
	}
}
